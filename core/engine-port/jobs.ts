// The conversion engine port's shapes for the Spark jobs it runs as child processes (the rewrite,
// the read-back proof, a view's check: engine/rewrite-job.ts). Pure types.

export interface RewriteFile {
  readonly path: string;
  readonly bytes: number;
  readonly rows: number;
}

export interface RewriteResult {
  readonly status: 'written' | 'resumed' | 'bad-spec' | 'target-taken';
  readonly jobId?: string;
  readonly target?: string;
  readonly location?: string;
  readonly snapshotId?: string | null;
  readonly source?: { rows: number; checksum: string };
  readonly written?: { rows: number; checksum: string };
  readonly match?: boolean;
  readonly files?: readonly RewriteFile[];
  readonly bytesWritten?: number;
  readonly seconds?: number;
  readonly error?: string;
  readonly marker?: string;
}

export interface RunJobOptions {
  readonly command: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly workDir: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly onEvent?: (e: Record<string, unknown>) => void;
  /** The job script (default: the shipped one). */
  readonly job?: string;
}
