import { afterEach, describe, expect, it } from 'vitest';
import { apiError } from './refusal';
import { parseMessage, validateMessage, detectMessage } from '../../iso20022/index';
import { LIBXML_SAFE_OPTIONS, validateAgainstXsd } from '../../iso20022/xsd';


const NS = 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.09';

const XXE = `<?xml version="1.0"?>
<!DOCTYPE Document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<Document xmlns="${NS}"><CstmrCdtTrfInitn><GrpHdr><MsgId>&xxe;</MsgId></GrpHdr></CstmrCdtTrfInitn></Document>`;

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<Document xmlns="${NS}"><CstmrCdtTrfInitn><GrpHdr><MsgId>&lol9;</MsgId></GrpHdr></CstmrCdtTrfInitn></Document>`;

function nested(depth: number): string {
  return `<Document xmlns="${NS}">` + '<a>'.repeat(depth - 1) + '</a>'.repeat(depth - 1) + '</Document>';
}

const ENTRY_POINTS = { parseMessage, validateMessage, detectMessage } as const;

describe('XML safety', () => {
  afterEach(() => {
    delete process.env.ISO20022_MAX_BYTES;
  });

  for (const [name, fn] of Object.entries(ENTRY_POINTS)) {
    it(`${name} refuses a DOCTYPE with an external entity (XXE to file:///etc/passwd)`, () => {
      const err = apiError(() => fn(XXE));
      expect(err.status).toBe(400);
      expect(err.code).toBe('XML_DTD_FORBIDDEN');
      expect(JSON.stringify(err)).not.toMatch(/root:/);
    });
  }

  it('refuses DOCTYPE in any case or spacing, and entity declarations', () => {
    expect(apiError(() => parseMessage(`<!doctype Document><Document xmlns="${NS}"/>`)).code).toBe('XML_DTD_FORBIDDEN');
    expect(apiError(() => parseMessage(`<Document xmlns="${NS}"><!-- x --><! ENTITY a "b"></Document>`)).code).toBe('XML_DTD_FORBIDDEN');
  });

  it('refuses the billion laughs fast, without expanding anything', () => {
    const started = performance.now();
    const err = apiError(() => validateMessage(BILLION_LAUGHS));
    expect(performance.now() - started).toBeLessThan(100);
    expect(err).toMatchObject({ status: 400, code: 'XML_DTD_FORBIDDEN' });
  });

  it('refuses deep nesting fast', () => {
    const started = performance.now();
    const err = apiError(() => parseMessage(nested(50_000)));
    expect(performance.now() - started).toBeLessThan(200);
    expect(err).toMatchObject({ status: 400, code: 'XML_TOO_DEEP' });
    expect(apiError(() => parseMessage(nested(101))).code).toBe('XML_TOO_DEEP');
    // At the limit the document gets through the safety checks (and is then simply not a pain.001 root).
    expect(apiError(() => parseMessage(nested(100))).code).toBe('UNSUPPORTED_MESSAGE_TYPE');
  });

  it('refuses bodies above ISO20022_MAX_BYTES with 413', () => {
    process.env.ISO20022_MAX_BYTES = '1024';
    const big = `<Document xmlns="${NS}"><CstmrCdtTrfInitn>${'<!-- pad -->'.repeat(100)}</CstmrCdtTrfInitn></Document>`;
    expect(apiError(() => validateMessage(big))).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    // Multi-byte characters count as bytes, not characters.
    const multiByte = `<Document xmlns="${NS}"><a>${'€'.repeat(400)}</a></Document>`;
    expect(multiByte.length).toBeLessThan(1024);
    expect(apiError(() => parseMessage(multiByte)).status).toBe(413);
    delete process.env.ISO20022_MAX_BYTES;
    expect(apiError(() => parseMessage(multiByte)).status).toBe(422);
  });

  it('rejects entity references without a DTD and other malformed XML as INVALID_XML', () => {
    for (const bad of [
      `<Document xmlns="${NS}"><a>&foo;</a></Document>`,
      `<Document xmlns="${NS}"><a>AT&T</a></Document>`,
      `<Document xmlns="${NS}"><a></b></Document>`,
      `<Document xmlns="${NS}"><a x="1" x="2"/></Document>`,
      `<Document xmlns="${NS}"></Document><Second/>`,
      `<Document xmlns="${NS}"><a>`,
      'plain text',
      '',
    ]) {
      const err = apiError(() => validateMessage(bad));
      expect({ bad, status: err.status, code: err.code }).toEqual({ bad, status: 400, code: 'INVALID_XML' });
    }
  });

  it('calls libxml2 with entity substitution, DTD loading and network access off', () => {
    expect(LIBXML_SAFE_OPTIONS).toMatchObject({ noent: false, dtdload: false, dtdvalid: false, nonet: true, huge: false });
    // Even if a DTD slipped past the pre-check, libxml2 must not read the file.
    const issues = validateAgainstXsd(XXE, 'pain.001.001.09');
    expect(JSON.stringify(issues)).not.toMatch(/root:x:0:0/);
  });
});
