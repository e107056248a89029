// The Resume button of a stopped, failed or orphaned run: POST runs/<id>/resume (the server starts
// `rlworkbench resume <run dir>` in a process of its own; the run's record goes live again under the same id). A
// cluster job's card has one too: its resume is a new job on that cluster, refused while the cluster still runs it.
// Ids in `resuming` keep their "Resuming…" label over the panel's refreshes until the record is live again; a
// refusal (no checkpoint to go on from, say) stays on the button until the next press.
import { requestAPI } from './api';
import { button } from './dom';

export const RESUMABLE = new Set(['stopped', 'failed', 'orphaned']);
const refused = new Map<string, string>(); // run id → why the server refused its last resume

export function resumeButton(recordId: string, resuming: Set<string>): HTMLButtonElement {
  const resume = button('Resume', 'rlwb-resume', async () => {
    refused.delete(recordId);
    resuming.add(recordId);
    show(resume, recordId, resuming);
    try {
      await requestAPI(`runs/${recordId}/resume`, { method: 'POST' });
    } catch (error) {
      resuming.delete(recordId);
      refused.set(recordId, `${error}`);
      show(resume, recordId, resuming);
    }
  });
  show(resume, recordId, resuming);
  return resume;
}

function show(resume: HTMLButtonElement, recordId: string, resuming: Set<string>): void {
  const why = refused.get(recordId);
  resume.disabled = resuming.has(recordId);
  resume.textContent = resuming.has(recordId) ? 'Resuming…' : why ? `Resume failed: ${why}` : 'Resume';
  resume.title = why ?? 'Go on from the newest complete checkpoint (same run folder and record)';
}
