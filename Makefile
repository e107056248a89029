# The two commands: `make demo` runs the main job, `make test` the test suite. Both bootstrap .venv first.
VENV_PY := .venv/bin/python
export RAY_AUTH_MODE ?= disabled
export RAY_USAGE_STATS_ENABLED ?= 0
# a node started on a loaded 2-core machine can take longer than Ray's 30 s to register: wait, don't fail
export RAY_raylet_start_wait_time_s ?= 120
export SDL_AUDIODRIVER ?= dummy

.PHONY: demo test bootstrap bench lint

bootstrap:
	@bash scripts/bootstrap.sh

demo: bootstrap
	$(VENV_PY) -m rlworkbench.demo

# The tests that need no machine to themselves run first, on both cores (pytest-xdist, one file per worker, one torch
# thread each); then the `solo` ones (Ray, servers, browsers: tests/suite_parts.py) one by one. Both parts always run.
TEST_WORKERS ?= 2
test: bootstrap
	OMP_NUM_THREADS=1 $(VENV_PY) -m pytest -m "not solo" -n $(TEST_WORKERS) --dist loadfile; shared=$$?; \
	$(VENV_PY) -m pytest -m solo; solo=$$?; \
	test $$shared -eq 0 && test $$solo -eq 0

bench: bootstrap
	$(VENV_PY) -m bench.build_overhead
	$(VENV_PY) -m bench.act_overhead
	$(VENV_PY) -m bench.act_overhead_recurrent
	$(VENV_PY) -m bench.ppo_lstm_update
	$(VENV_PY) -m bench.learner_group
	$(VENV_PY) -m bench.backends
	$(VENV_PY) -m bench.replay_scaling --huge
	$(VENV_PY) -m bench.capacity
	$(VENV_PY) -m bench.faults
	$(VENV_PY) -m bench.sample_throughput
	$(VENV_PY) -m bench.train_overhead --backends torch tf
	$(VENV_PY) -m bench.multi_device --backends torch tf
	$(VENV_PY) -m bench.builder_redraw
	$(VENV_PY) -m bench.learning --seeds 3
	$(VENV_PY) -m bench.apex_vs_rllib
	$(VENV_PY) -m bench.impala_vs_rllib
	$(VENV_PY) -m bench.ppo_vs_rllib
	$(VENV_PY) -m bench.sweep
	$(VENV_PY) -m bench.plans_vs_loops

lint: bootstrap
	$(VENV_PY) -m ruff check rlworkbench tests bench
