// A plain TCP connect to host:port under a deadline: the pre-check before a gRPC handshake, so a
// refused port (ECONNREFUSED), an unknown host (ENOTFOUND) or a blackhole (timeout) is reported
// with its cause as soon as the kernel knows it.
import net from 'node:net';

/** Splits `host:port` (IPv6 in brackets: `[::1]:7233`). */
export function hostPort(address: string): { host: string; port: number } {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(address);
  if (!m) throw new Error(`expected host:port, got '${address}'`);
  return { host: m[1] as string, port: Number(m[2]) };
}

/** Resolves once a TCP connection to `address` is established (and closes it); rejects with the cause otherwise. */
export function tcpConnect(address: string, timeoutMs: number): Promise<void> {
  const { host, port } = hostPort(address);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    const done = (err?: Error): void => {
      clearTimeout(timer);
      socket.removeAllListeners();
      socket.destroy();
      if (err) reject(err);
      else resolve();
    };
    const timer = setTimeout(() => done(new Error(`no TCP connection to ${host}:${port} within ${timeoutMs} ms`)), timeoutMs);
    socket.once('connect', () => done());
    socket.once('error', (e: Error) => done(e));
  });
}
