// The local stack's component contract: install once into a versioned cache, start on loopback,
// prove health, stop only what we started. Dev tooling; not part of the product.
/** Everything a component needs to know about where it runs. Resolved once by `manifest.ts`. */
export interface StackContext {
  /** Repo root (where temporal-dev.yml lives). */
  readonly repoRoot: string;
  /** Versioned install cache shared by every clone on this machine (HIM_CACHE_DIR). */
  readonly cacheDir: string;
  /** Per-stack runtime state: data dirs, pid files, logs (HIM_STATE_DIR). */
  readonly stateDir: string;
  /** The parsed manifest. */
  readonly manifest: StackManifest;
  /** Resolved port of a component's named port (e.g. port('temporal'), port('temporal', 'ui')). */
  port(component: string, name?: string): number;
  /** Environment variable that moves that port (for error messages). */
  portEnv(component: string, name?: string): string;
  /** Print a progress line (stderr). */
  log(msg: string): void;
}

export interface ComponentManifest {
  readonly version: string;
  readonly description: string;
  readonly dependsOn: readonly string[];
  /** name → { default, env } ; 'main' is the component's primary port. */
  readonly ports: Readonly<Record<string, { readonly default: number; readonly env: string }>>;
  /** Free-form settings for the component (coordinates, args, buckets, credentials ...). */
  readonly settings: Readonly<Record<string, unknown>>;
  /** Its start takes the longest (tens of seconds of JVM start): `up` starts it before the others that are ready. */
  readonly slowStart: boolean;
  /** Its install is a Go build of the repo's own source (settings.goModule marks a `go install` of a module): one Go build at a time. */
  readonly goBuild: boolean;
}

export interface StackManifest {
  readonly version: 1;
  readonly components: Readonly<Record<string, ComponentManifest>>;
  /** Dev-only credentials shared by the stack (S3 root keys etc.). */
  readonly credentials: Readonly<Record<string, string>>;
}

export interface Health {
  readonly ok: boolean;
  /** Short human text: "SERVING", "PostgreSQL 15.18", error message ... */
  readonly detail: string;
  /** Version as reported by the running server, when it tells. */
  readonly serverVersion?: string;
}

export interface Component {
  readonly name: string;
  /** Idempotent install into ctx.cacheDir (use `cachedInstall`). Must not touch the state dir. */
  install(ctx: StackContext): Promise<void>;
  /**
   * Start on 127.0.0.1 (dependencies are already up). Must create its data dirs on first start,
   * write its pid with `writePid`, log into `logFile(ctx, name)`, and return when `health` is ok.
   */
  start(ctx: StackContext): Promise<void>;
  /** Probe with a real client round trip. Never throws. */
  health(ctx: StackContext): Promise<Health>;
  /** Stop what `start` started (use `stopPid`). Idempotent. */
  stop(ctx: StackContext): Promise<void>;
  /** Endpoint(s) to print, e.g. { grpc: '127.0.0.1:7233', ui: 'http://127.0.0.1:8233' }. */
  endpoints(ctx: StackContext): Record<string, string>;
}
