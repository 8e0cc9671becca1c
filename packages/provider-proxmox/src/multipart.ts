/**
 * The upload body pveproxy's own multipart parser accepts (reference §10): the `content` field
 * first, then the file part whose field name is exactly `filename`, with the volume name in the
 * part's `filename="..."`. Built in memory so the request carries a Content-Length (no chunking).
 */
export function buildIsoUpload(filename: string, data: Uint8Array): { body: Buffer; contentType: string } {
  // node:crypto is fetched on use: importing the package loads no crypto.
  const { randomBytes } = process.getBuiltinModule('node:crypto');
  const boundary = `----pveupload${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="content"\r\n\r\niso\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="filename"; filename="${filename}"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return {
    body: Buffer.concat([head, data, tail]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}
