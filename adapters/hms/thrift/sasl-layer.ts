// The SASL/GSSAPI security-layer negotiation (RFC 4752 §3.1) as pure functions: the server's offer
// (layers it accepts + its max receive buffer), the layer we choose from the operator's preference
// list, and our answer. Names are Hadoop's (hadoop.rpc.protection). Pure; no I/O, no core imports.

/** Hadoop's names for the SASL quality of protection, weakest first (hadoop.rpc.protection values). */
export const PROTECTIONS = ['authentication', 'integrity', 'privacy'] as const;
export type Protection = (typeof PROTECTIONS)[number];

/** What a client without preferences takes: the cheapest the server accepts (Hadoop's client order). */
export const DEFAULT_PROTECTION: readonly Protection[] = PROTECTIONS;

/**
 * RFC 4752 §3.1 security-layer bit masks: 1 "no security layer" (QOP auth), 2 integrity protection
 * (QOP auth-int), 4 confidentiality protection (QOP auth-conf).
 */
export const LAYER_BIT: { readonly [P in Protection]: number } = { authentication: 1, integrity: 2, privacy: 4 };

/** RFC 4752 §3.1: the message is 4 octets, the bit mask then a 3-octet network-order max buffer size. */
const LAYER_MESSAGE_LENGTH = 4;

/**
 * The largest wrapped message we accept, the largest RFC 4752's 3 octets can say. We read frames of
 * any length (libthrift's TSaslTransport and the JDK's GSSAPI server do not split messages to the
 * peer's size either), so advertising less would only be a promise the server does not keep.
 */
export const MAX_RECEIVE_BUFFER = 0xffffff;

export interface LayerOffer {
  /** Bit mask of the layers the server accepts (LAYER_BIT). */
  readonly layers: number;
  /** The largest wrapped message the server says it receives (informational: see MAX_RECEIVE_BUFFER). */
  readonly maxBuffer: number;
}

/** The unwrapped server challenge after the context is established; undefined when it is not 4 octets. */
export function parseOffer(message: Buffer): LayerOffer | undefined {
  if (message.length !== LAYER_MESSAGE_LENGTH) return undefined;
  return { layers: message.readUInt8(0), maxBuffer: message.readUIntBE(1, 3) };
}

/** The offer in Hadoop's names, weakest first: 0b101 → ['authentication', 'privacy']. */
export function offeredProtections(layers: number): Protection[] {
  return PROTECTIONS.filter((p) => (layers & LAYER_BIT[p]) !== 0);
}

/** The first of our preferences the server offers (as the JDK's GSSAPI client picks), or undefined. */
export function chooseProtection(layers: number, preference: readonly Protection[]): Protection | undefined {
  return preference.find((p) => (layers & LAYER_BIT[p]) !== 0);
}

/**
 * Our answer before gss_wrap (no authorization id: Thrift sends none): the chosen layer's bit, then
 * our max receive buffer — 0 with no security layer, as RFC 4752 asks when no layer is used.
 */
export function encodeAnswer(protection: Protection, maxReceive: number = MAX_RECEIVE_BUFFER): Buffer {
  const answer = Buffer.alloc(LAYER_MESSAGE_LENGTH);
  answer.writeUInt8(LAYER_BIT[protection], 0);
  answer.writeUIntBE(protection === 'authentication' ? 0 : Math.min(maxReceive, MAX_RECEIVE_BUFFER), 1, 3);
  return answer;
}
