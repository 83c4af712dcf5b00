// How a table ends after its compensations ran: with the failure that started them, or — when an
// undo step could not finish — COMPENSATION_INCOMPLETE naming what is left and the repair command.
// The same words whether the compensations ran in a table workflow or inside a batch activity.
import { planId } from '../plan/ids';

export function compensationEnd(
  failure: { readonly code: string; readonly message: string },
  incomplete: readonly string[],
  planHash: string,
): { code: string; message: string } {
  if (incomplete.length === 0) return { code: failure.code, message: failure.message };
  return {
    code: 'COMPENSATION_INCOMPLETE',
    message: `${failure.code}: ${failure.message} — then the undo could not finish (${incomplete.join('; ')}); run migrate repair ${planId(planHash)}`,
  };
}
