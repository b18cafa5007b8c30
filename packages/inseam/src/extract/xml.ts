/**
 * A forgiving scan of the XML inside an Office file: start tags (with attributes), end tags and
 * text, entities decoded. Office parts are machine-written and flat enough that a scanner reads
 * them exactly; it never builds a tree, so a huge sheet costs its text and no more.
 */

export interface XmlVisitor {
  open(name: string, attributes: string, selfClosing: boolean): void;
  close(name: string): void;
  text(text: string): void;
}

// A tag's attributes never hold "<" (XML requires &lt;), so a stray "<" costs one step, not a
// scan to the end of the part.
const TOKEN = /<!\[CDATA\[([\s\S]*?)\]\]>|<!--[\s\S]*?-->|<[!?][^<>]*>|<(\/?)([A-Za-z_][\w.:-]*)([^<>]*?)(\/?)>|([^<]+)/gu;
const ENTITY = /&(?:#x([0-9a-fA-F]+)|#([0-9]+)|(lt|gt|amp|quot|apos));/gu;
const NAMED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY, (whole, hex: string | undefined, dec: string | undefined, name: string | undefined) => {
    if (name !== undefined) return NAMED[name]!;
    const code = hex !== undefined ? Number.parseInt(hex, 16) : Number.parseInt(dec!, 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

export function scanXml(xml: string, visitor: XmlVisitor): void {
  for (const match of xml.matchAll(TOKEN)) {
    const [, cdata, slash, name, attributes, selfClosing, text] = match;
    if (cdata !== undefined) visitor.text(cdata);
    else if (text !== undefined) visitor.text(decodeEntities(text));
    else if (name === undefined) continue;
    else if (slash === '/') visitor.close(name);
    else visitor.open(name, attributes ?? '', selfClosing === '/');
  }
}

/** One attribute's decoded value, or undefined. */
export function attribute(attributes: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|\\s)${name.replace(/[.:]/gu, '\\$&')}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, 'u').exec(attributes);
  if (match === null) return undefined;
  return decodeEntities(match[1] ?? match[2] ?? '');
}
