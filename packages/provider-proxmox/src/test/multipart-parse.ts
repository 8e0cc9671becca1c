export interface Part {
  name: string;
  filename?: string;
  data: Buffer;
}

/** A minimal multipart/form-data parser, enough to hold uploads to pveproxy's rules. */
export function parseMultipart(body: Buffer, contentType: string): Part[] | undefined {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary) return undefined;
  const delim = Buffer.from(`--${boundary}`);
  const parts: Part[] = [];
  let pos = body.indexOf(delim);
  if (pos < 0) return undefined;
  for (;;) {
    pos += delim.length;
    if (body.subarray(pos, pos + 2).toString() === '--') return parts;
    pos += 2; // CRLF
    const headEnd = body.indexOf('\r\n\r\n', pos);
    if (headEnd < 0) return undefined;
    const head = body.subarray(pos, headEnd).toString('utf8');
    const next = body.indexOf(delim, headEnd + 4);
    if (next < 0) return undefined;
    const data = body.subarray(headEnd + 4, next - 2);
    const disp = /content-disposition:\s*form-data;([^\r\n]*)/i.exec(head)?.[1] ?? '';
    const name = /\bname="([^"]*)"/.exec(disp)?.[1] ?? '';
    const filename = /\bfilename="([^"]*)"/.exec(disp)?.[1];
    parts.push(filename === undefined ? { name, data } : { name, filename, data });
    pos = next;
  }
}
