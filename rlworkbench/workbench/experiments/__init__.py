"""Experiments: many runs of a prototype — sweeps, seeds, schedulers — on Ray Tune, and comparisons the field
trusts.

:func:`sweep` starts one (:class:`Experiment`: a live widget, ``results``, ``curves``, ``best``, ``stop()``,
``resume()``, ``Experiment.attach(name)``); :func:`compare` puts runs or experiments side by side with interval
estimates (IQM, mean, median, optimality gap with stratified bootstrap confidence intervals, performance
profiles; computed by ``rliable``). Importing this package imports neither Ray nor rliable.
"""

from rlworkbench.workbench.experiments.compare import Comparison, compare
from rlworkbench.workbench.experiments.experiment import Experiment
from rlworkbench.workbench.experiments.sweep import sweep

__all__ = ["Comparison", "Experiment", "compare", "sweep"]
