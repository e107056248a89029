// Calls to rlworkbench's server extension (rlworkbench/lab/handlers.py), with the server's own auth.
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

// The run records and the /runs reply: generated from the schema the Python side writes them by
// (rlworkbench/workbench/run_record.schema.json). What the panel gets is the served record (paths also relative to
// the server's root).
export type {
  IClusterRow,
  IExperimentTrial,
  IRunsReply,
  IServedExperimentRecord as IExperimentRecord,
  IServedRunRecord as IRunRecord,
  RunState,
  TrialState
} from './runRecord.generated';

export interface IComponentDetails {
  class: string;
  path: string;
  device: string | null;
  resolved_device: string | null;
  built: boolean;
  backend: string | null;
  variables: number;
  values: number;
  api: { api_method: string; inputs: string; outputs: string }[];
}

export interface IGraphReply {
  svg: string;
  title: string;
  components: { [path: string]: IComponentDetails };
  api_methods: string[];
  error: string | null;
  max_depth: number; // of the component tree below the drawn component
}

export interface ICompareRun {
  id: string;
  label: string;
  name: string | null;
  env: string | null;
  state: string | null;
  experiment: string | null;
  trial: string | null;
  seed: number | null;
  curve: [number, number][]; // [env steps, return] per episode
  source: 'episodes.csv' | 'record';
  config: { [key: string]: unknown };
}

export interface ICompareReply {
  runs: ICompareRun[];
  diff: { path: string; values: { [runId: string]: unknown } }[]; // a run without the path has no value
}

/** A refused request: the HTTP status and the server's reason (the message reads `<status> <reason>`). */
export class APIError extends Error {
  constructor(readonly status: number, readonly reason: string) {
    super(`${status} ${reason}`);
  }
}

/** A JSON request to `<base>/rlworkbench/<path>`; an APIError with the server's reason otherwise. */
export async function requestAPI<T>(path: string, init: RequestInit = {}): Promise<T> {
  const settings = ServerConnection.makeSettings();
  const url = URLExt.join(settings.baseUrl, 'rlworkbench', path);
  const response = await ServerConnection.makeRequest(url, init, settings);
  const text = await response.text();
  if (!response.ok) {
    let reason = response.statusText;
    try {
      const body = JSON.parse(text);
      reason = body.reason || body.message || reason;
    } catch {
      // not JSON: keep the status text
    }
    throw new APIError(response.status, reason);
  }
  return (text ? JSON.parse(text) : {}) as T;
}
