// The Stop button of a live run or experiment: POST runs/<id>/stop (the record's heartbeat acts on it). Ids in
// `stopping` keep their "Stopping…" label over the panel's refreshes.
import { requestAPI } from './api';
import { button } from './dom';

export function stopButton(recordId: string, stopping: Set<string>): HTMLButtonElement {
  const stop = button('Stop', 'rlwb-stop', async () => {
    stopping.add(recordId);
    stop.disabled = true;
    stop.textContent = 'Stopping…';
    try {
      await requestAPI(`runs/${recordId}/stop`, { method: 'POST' });
    } catch (error) {
      stop.textContent = `Stop failed: ${error}`;
    }
  });
  if (stopping.has(recordId)) {
    stop.disabled = true;
    stop.textContent = 'Stopping…';
  }
  return stop;
}
