// Workflow interceptor bundled into the test workflows (helpers/env.ts): the time-skipping test
// server never suggests continue-as-new (the real server does at 4,096 events,
// docs/design/temporal-rules.md §0.7), so a workflow started with the memo
// `{ suggestContinueAsNewAt: n }` sees workflowInfo().continueAsNewSuggested once its history holds
// n events, as the server would tell it. Inert without that memo. Deterministic (history length).
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { workflowInfo } from '@temporalio/workflow';

export const SUGGEST_AT_MEMO = 'suggestContinueAsNewAt';

export const interceptors: WorkflowInterceptorsFactory = () => ({
  internals: [
    {
      activate(input, next) {
        const info = workflowInfo();
        const at = info.memo?.[SUGGEST_AT_MEMO];
        // The activation has already been copied into the info (the worker does that first).
        if (typeof at === 'number' && info.historyLength >= at) (info as { continueAsNewSuggested: boolean }).continueAsNewSuggested = true;
        next(input);
      },
    },
  ],
});
