// An experiment in the runs panel: a header (name, state, its trials' state counts, best trial and value, Stop
// while it goes, Folder) that expands to its trials — each with its parameters and the cards of its runs, or, where
// its runs publish no records here (a sweep on a cluster), the trial alone, as the experiment's own record has it.
import { IExperimentRecord, IExperimentTrial, IRunRecord } from './api';
import { button, clock, element, paramsText } from './dom';
import { ICardContext, LIVE, runCard } from './runCard';
import { stopButton } from './stopButton';

export function experimentGroup(experiment: IExperimentRecord, runs: IRunRecord[], expanded: Set<string>,
  context: ICardContext): HTMLElement {
  const group = element('div', 'rlwb-experiment');
  group.dataset.experimentId = experiment.id;
  group.dataset.state = experiment.state;
  const toggle = element('span', 'rlwb-toggle');
  const header = element('div', 'rlwb-experiment-title');
  header.title = 'Show or hide its trials';
  header.append(toggle, element('span', `rlwb-state rlwb-state-${experiment.state}`, experiment.state),
    element('span', 'rlwb-experiment-name', experiment.name), element('span', 'rlwb-kind', 'experiment'));
  const body = element('div', 'rlwb-trials');
  const show = (open: boolean) => {
    body.hidden = !open;
    toggle.textContent = open ? '▾' : '▸';
    group.classList.toggle('rlwb-expanded', open);
  };
  header.addEventListener('click', () => {
    if (expanded.has(experiment.id)) {
      expanded.delete(experiment.id);
    } else {
      expanded.add(experiment.id);
    }
    show(expanded.has(experiment.id));
  });
  group.append(header, element('div', 'rlwb-experiment-summary', summary(experiment)),
    element('div', 'rlwb-times', setup(experiment)));
  if (experiment.error) {
    group.appendChild(element('div', 'rlwb-error', experiment.error));
  }
  const buttons = element('div', 'rlwb-actions');
  if (LIVE.has(experiment.state)) {
    buttons.appendChild(stopButton(experiment.id, context.stopping));
  }
  buttons.appendChild(button('Folder', 'rlwb-folder',
    () => context.actions.openFolder(experiment.name, experiment.directory, experiment.directory_in_root)));
  group.appendChild(buttons);
  body.append(...trials(experiment, runs, context));
  group.appendChild(body);
  show(expanded.has(experiment.id));
  return group;
}

function summary(experiment: IExperimentRecord): string {
  const counts = Object.entries(experiment.counts).map(([state, n]) => `${n} ${state}`).join(' · ') || 'no trials yet';
  const best = experiment.best_trial === null ? '' :
    ` · best ${experiment.best_trial}: ${value(experiment.best)} ${experiment.metric}`;
  return counts + best;
}

function setup(experiment: IExperimentRecord): string {
  const seeds = experiment.seeds.length;
  return `${experiment.scheduler ?? 'no scheduler'} · ${experiment.trials.length} trial(s) × ${seeds} seed(s) · ` +
    `${experiment.budget.toLocaleString()} steps each · started ${clock(experiment.started)}` +
    (experiment.submission_id ? ` · job ${experiment.submission_id}` : '');
}

/** A section per trial (in the record's order, then any only its runs name): its title and parameters, then the
 * cards of its runs, one per seed — none where the experiment's runs publish no records here. */
function trials(experiment: IExperimentRecord, runs: IRunRecord[], context: ICardContext): HTMLElement[] {
  const known = new Map(experiment.trials.map((trial) => [trial.trial, trial]));
  const byTrial = new Map<string, IRunRecord[]>(experiment.trials.map((trial) => [trial.trial, []]));
  for (const run of runs) {
    const trial = String(run.labels?.trial ?? '?');
    byTrial.set(trial, [...(byTrial.get(trial) ?? []), run]);
  }
  return [...byTrial.entries()].map(([trial, members]) => {
    const section = element('div', members.length ? 'rlwb-trial' : 'rlwb-trial rlwb-trial-row');
    section.dataset.trial = trial;
    const about = known.get(trial);
    section.append(element('div', 'rlwb-trial-title', trialTitle(experiment, trial, about)),
      element('div', 'rlwb-params', paramsText(about?.params ?? members[0]?.labels?.params)));
    members.sort((a, b) => Number(a.labels?.seed ?? 0) - Number(b.labels?.seed ?? 0));
    section.append(...members.map((run) => runCard(run, context)));
    return section;
  });
}

function trialTitle(experiment: IExperimentRecord, trial: string, about: IExperimentTrial | undefined): string {
  const best = trial === experiment.best_trial ? '★ ' : '';
  if (!about) {
    return `${best}${trial}`;
  }
  return `${best}${trial} · ${about.state} · ${about.timesteps.toLocaleString()} steps · ` +
    `${experiment.metric} ${value(about.value)}`;
}

function value(number: number | null): string {
  return number === null || number === undefined ? 'n/a' : number.toFixed(1);
}
