import { describe, expect, it } from 'vitest';
import { childElements, childText, parseXml } from './s3-xml.js';

describe('the S3 XML reader', () => {
  it('reads a ListBucketResult with entities, numeric references and CDATA', () => {
    const root = parseXml(`<?xml version="1.0" encoding="UTF-8"?>
      <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
        <!-- a comment -->
        <IsTruncated>true</IsTruncated>
        <Contents><Key>a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos; &#x4E16;&#30028;</Key><Size>3</Size></Contents>
        <Contents><Key><![CDATA[raw <key> & more]]></Key><Size/></Contents>
        <NextContinuationToken>tok+/=</NextContinuationToken>
      </ListBucketResult>`);
    expect(root.name).toBe('ListBucketResult');
    expect(childText(root, 'IsTruncated')).toBe('true');
    expect(childElements(root, 'Contents').map((contents) => childText(contents, 'Key'))).toEqual([`a & b <c> "d" 'e' 世界`, 'raw <key> & more']);
    expect(childText(childElements(root, 'Contents')[1]!, 'Size')).toBe('');
    expect(childText(root, 'NextContinuationToken')).toBe('tok+/=');
  });

  it('refuses a DOCTYPE (no entity expansion, ever) and malformed documents', () => {
    const attacks = [
      '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><Error><Code>&e;</Code></Error>',
      '<Error><Code>x</Message></Error>',
      '<Error><Code>x</Code>',
      '<A/><B/>',
      'no xml at all',
    ];
    for (const xml of attacks) expect(() => parseXml(xml), xml).toThrow(expect.objectContaining({ code: 'connector_failed' }));
  });
});
