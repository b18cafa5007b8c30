/**
 * A small XML reader for the documents S3 answers with (ListBucketResult, Error). It keeps
 * element names and text, ignores attributes, comments and processing instructions, decodes the
 * five named entities and numeric references, and refuses a DOCTYPE — so no entity expansion,
 * external or otherwise, can ever happen.
 */
import { ConnectorFailedError } from '@neuralis/package-system/contracts';

export interface XmlElement {
  readonly name: string;
  readonly children: XmlElement[];
  text: string;
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Parses a document and returns its root element. Throws connector_failed on malformed XML. */
export function parseXml(xml: string): XmlElement {
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let index = 0;
  while (index < xml.length) {
    const open = xml.indexOf('<', index);
    const textEnd = open === -1 ? xml.length : open;
    if (textEnd > index) {
      const current = stack[stack.length - 1];
      if (current !== undefined) current.text += decodeEntities(xml.slice(index, textEnd));
    }
    if (open === -1) break;
    if (xml.startsWith('<?', open)) {
      index = endOf(xml, '?>', open);
    } else if (xml.startsWith('<!--', open)) {
      index = endOf(xml, '-->', open);
    } else if (xml.startsWith('<![CDATA[', open)) {
      const end = endOf(xml, ']]>', open);
      const current = stack[stack.length - 1];
      if (current !== undefined) current.text += xml.slice(open + 9, end - 3);
      index = end;
    } else if (xml.startsWith('<!', open)) {
      throw malformed('a DOCTYPE or declaration, which S3 never sends');
    } else if (xml.startsWith('</', open)) {
      const end = endOf(xml, '>', open);
      const name = xml.slice(open + 2, end - 1).trim();
      const closed = stack.pop();
      if (closed === undefined || closed.name !== name) throw malformed('mismatched closing tag');
      index = end;
    } else {
      const end = endOf(xml, '>', open);
      const selfClosing = xml[end - 2] === '/';
      const inner = xml.slice(open + 1, selfClosing ? end - 2 : end - 1);
      const name = inner.split(/[\s/]/, 1)[0] ?? '';
      if (name === '') throw malformed('an element without a name');
      const element: XmlElement = { name, children: [], text: '' };
      const parent = stack[stack.length - 1];
      if (parent !== undefined) parent.children.push(element);
      else if (root === undefined) root = element;
      else throw malformed('more than one root element');
      if (!selfClosing) stack.push(element);
      index = end;
    }
  }
  if (root === undefined || stack.length > 0) throw malformed('an unterminated document');
  return root;
}

export function childElement(element: XmlElement, name: string): XmlElement | undefined {
  return element.children.find((child) => child.name === name);
}

export function childElements(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((child) => child.name === name);
}

export function childText(element: XmlElement, name: string): string | undefined {
  return childElement(element, name)?.text;
}

function endOf(xml: string, terminator: string, from: number): number {
  const at = xml.indexOf(terminator, from);
  if (at === -1) throw malformed('an unterminated tag');
  return at + terminator.length;
}

function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, body: string) => {
    if (body.startsWith('#x')) return fromCodePoint(Number.parseInt(body.slice(2), 16), whole);
    if (body.startsWith('#')) return fromCodePoint(Number.parseInt(body.slice(1), 10), whole);
    return NAMED_ENTITIES[body] ?? whole;
  });
}

function fromCodePoint(codePoint: number, fallback: string): string {
  return codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : fallback;
}

function malformed(what: string): ConnectorFailedError {
  return new ConnectorFailedError(`The endpoint answered with malformed XML (${what}).`, { details: { reason: 'malformed_xml' } });
}
