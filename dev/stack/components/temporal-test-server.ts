// Temporal's time-skipping test server (the Java SDK's io.temporal:temporal-test-server from Maven,
// with its runtime dependencies) for the workflow tests in test/workflows/: install-only, like
// `browser`. Each test file's TestWorkflowEnvironment.createTimeSkipping() starts its own server
// through `bin/temporal-test-server` (`server.executable: { type: 'existing-path' }`; the SDK passes
// the port as the only argument and kills the process on teardown), so nothing runs between tests.
// The SDK gives the server 5 s to answer (docs/design/temporal-rules.md §0.4): the install also
// dumps a class-data-sharing archive of the started server, which the wrapper loads (JVM start
// ≈ 1.8 s → ≈ 0.5 s, docs/design/stack-components.md). Dev tooling; never used by the product.
import { existsSync, promises as fs } from 'node:fs';
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import type { Component, StackContext } from '../types';
import { settings, versionOf } from '../manifest';
import { mavenCopyDependencies } from '../installers';
import { installDir } from '../env';
import { cachedInstall, run, StackError, which } from '../util';

const NAME = 'temporal-test-server';
const Settings = z.object({
  /** groupId:artifactId; the version is the component's. */
  artifact: z.string().regex(/^[\w.-]+:[\w.-]+$/),
  mainClass: z.string(),
  /** Extra runtime jars (g:a:v): an SLF4J binding keeps the server's stderr quiet. */
  extraDependencies: z.array(z.string().regex(/^[\w.-]+:[\w.-]+:[\w.-]+$/)).default([]),
  jvmOptions: z.array(z.string()).default([]),
});
type S = z.infer<typeof Settings>;

/** The wrapper script the SDK runs (`existing-path`). */
export const testServerBinary = (ctx: StackContext): string => path.join(installDir(ctx, NAME), 'bin', NAME);

const dependency = (coordinates: string): string => {
  const [groupId, artifactId, version] = coordinates.split(':');
  return `<dependency><groupId>${groupId}</groupId><artifactId>${artifactId}</artifactId><version>${version}</version></dependency>`;
};

const pom = (s: S, version: string): string => `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.him</groupId><artifactId>${NAME}-deps</artifactId><version>0</version><packaging>pom</packaging>
  <dependencies>
    ${[`${s.artifact}:${version}`, ...s.extraDependencies].map(dependency).join('\n    ')}
  </dependencies>
</project>
`;

/** A port nothing listens on now (the archive dump's server binds it for a moment). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.once('connect', () => (sock.destroy(), resolve(true)));
    sock.once('error', () => resolve(false));
  });

/**
 * Start the server once with -XX:ArchiveClassesAtExit, wait until it listens, stop it (SIGTERM runs
 * the JVM's exit path, which writes the archive). Without an archive the wrapper still works, slower.
 */
async function dumpArchive(ctx: StackContext, dir: string, java: readonly string[]): Promise<void> {
  const port = await freePort();
  const child = spawn('java', [`-XX:ArchiveClassesAtExit=${path.join(dir, 'lib', 'server.jsa')}`, ...java, String(port)], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new StackError(
        'INSTALL_FAILED',
        `${NAME}: the server did not listen on 127.0.0.1:${port} within 60 s while dumping its archive`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGTERM');
  await exited;
  ctx.log(
    `${NAME}: class-data archive ${existsSync(path.join(dir, 'lib', 'server.jsa')) ? 'written' : 'not written (the server starts slower)'}`,
  );
}

async function install(ctx: StackContext): Promise<void> {
  if (!(await which('java')))
    throw new StackError('TOOL_MISSING', 'java is not on PATH: install a JRE >= 11 (apt-get install openjdk-17-jre-headless)');
  const s = settings(ctx, NAME, Settings);
  const version = versionOf(ctx, NAME);
  // In place: the archive records the jars' paths, so it is written where they stay.
  await cachedInstall(
    ctx,
    NAME,
    version,
    async (dir) => {
      await mavenCopyDependencies(ctx, pom(s, version), path.join(dir, 'lib'));
      const jars = (await fs.readdir(path.join(dir, 'lib'))).filter((f) => f.endsWith('.jar')).sort();
      const classpath = jars.map((j) => path.join(dir, 'lib', j)).join(':');
      const java = [...s.jvmOptions, '-cp', classpath, s.mainClass];
      await dumpArchive(ctx, dir, java);
      await fs.mkdir(path.join(dir, 'bin'), { recursive: true });
      const script = [
        '#!/bin/sh',
        `# ${NAME} ${version}: the SDK runs this with the port as its argument (dev/stack/components/${NAME}.ts).`,
        `archive='${path.join(dir, 'lib', 'server.jsa')}'`,
        'cds=""',
        '[ -f "$archive" ] && cds="-XX:SharedArchiveFile=$archive -Xshare:auto"',
        `exec java $cds ${java.map((a) => `'${a}'`).join(' ')} "$@"`,
        '',
      ].join('\n');
      await fs.writeFile(path.join(dir, 'bin', NAME), script, { mode: 0o755 });
    },
    { inPlace: true },
  );
}

export const component: Component = {
  name: NAME,
  install,
  async start(ctx) {
    const h = await this.health(ctx);
    if (!h.ok) throw new StackError('START_FAILED', `${NAME}: ${h.detail}`);
  },
  async health(ctx) {
    const bin = testServerBinary(ctx);
    if (!existsSync(bin)) return { ok: false, detail: `not installed (${bin})` };
    try {
      await run('java', ['-version'], { timeoutMs: 30_000 });
      return { ok: true, detail: bin };
    } catch (e) {
      return { ok: false, detail: `java -version failed: ${(e as Error).message}` };
    }
  },
  async stop() {
    // Nothing runs between tests: each test environment starts and kills its own server.
  },
  endpoints(ctx) {
    return { binary: testServerBinary(ctx) };
  },
};
