import { connect, type Socket } from 'node:net';

const REMOTE_PROGRAM = 0x20008086;
const PROC_AUTH_LIST = 66;
const TYPE_REPLY = 1;

/**
 * What `watch` makes of a fresh connection `sock`, by calling `done` once: false when the
 * connection fails or closes first, or after `timeoutMs`. The socket is destroyed either way.
 */
export function probeSocket(
  sock: Socket,
  timeoutMs: number,
  watch: (done: (ok: boolean) => void) => void,
): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(false), timeoutMs);
    function done(ok: boolean) {
      clearTimeout(timer);
      sock.destroy();
      resolve(ok);
    }
    sock.once('error', () => done(false));
    sock.once('close', () => done(false));
    watch(done);
  });
}

/** True when something accepts a connection on the unix socket at `path`. */
export function canConnect(path: string, timeoutMs = 2_000): Promise<boolean> {
  const sock = connect(path);
  return probeSocket(sock, timeoutMs, (done) => sock.once('connect', () => done(true)));
}

/**
 * True when libvirtd answers an AUTH_LIST call on `path`. A bare connect is not enough: while
 * the daemon initialises its drivers the socket already accepts connections but nobody serves
 * them, and a client would hang.
 */
export function libvirtdAnswers(path: string, timeoutMs = 3_000): Promise<boolean> {
  const sock = connect(path);
  let buf = Buffer.alloc(0);
  return probeSocket(sock, timeoutMs, (done) => {
    sock.once('connect', () => {
      const pkt = Buffer.alloc(28);
      pkt.writeUInt32BE(28, 0);
      pkt.writeUInt32BE(REMOTE_PROGRAM, 4);
      pkt.writeUInt32BE(1, 8);
      pkt.writeInt32BE(PROC_AUTH_LIST, 12);
      pkt.writeInt32BE(0, 16);
      pkt.writeUInt32BE(1, 20);
      pkt.writeInt32BE(0, 24);
      sock.write(pkt);
    });
    sock.on('data', (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      if (buf.length < 28) return;
      const ok =
        buf.readUInt32BE(4) === REMOTE_PROGRAM &&
        buf.readInt32BE(12) === PROC_AUTH_LIST &&
        buf.readInt32BE(16) === TYPE_REPLY &&
        buf.readUInt32BE(20) === 1;
      done(ok);
    });
  });
}
