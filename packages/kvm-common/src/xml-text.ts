/** Escapes text for an XML attribute or element body. */
export function escapeXml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Reverses `escapeXml` and numeric character references. */
export function unescapeXml(value: string): string {
  return value.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_, e: string) => {
    switch (e) {
      case 'amp':
        return '&';
      case 'lt':
        return '<';
      case 'gt':
        return '>';
      case 'quot':
        return '"';
      case 'apos':
        return "'";
      default:
        return String.fromCodePoint(e[1] === 'x' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1)));
    }
  });
}

const ATTR = /^\s+([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/;

/** Parses an attribute list strictly; returns undefined when anything is left unparsed. */
export function parseAttributes(text: string): Map<string, string> | undefined {
  const out = new Map<string, string>();
  let rest = text;
  while (rest.trim() !== '') {
    const m = ATTR.exec(rest);
    if (!m) return undefined;
    out.set(m[1]!, unescapeXml(m[2] ?? m[3] ?? ''));
    rest = rest.slice(m[0].length);
  }
  return out;
}
