"""The actor manager on a real local Ray: requests capped per actor, results as they finish, a killed actor
replaced and handed the current state, task errors kept (and restarts on them when asked), a limit on restarts."""

from __future__ import annotations

import re
import time
from types import SimpleNamespace

import pytest
import ray

from rlworkbench.execution.ray import ActorFailed, ActorHung, ActorManager


@ray.remote(num_cpus=0)
class Holder:
    """Keeps a value set from outside; ``work`` takes a while and says who did it with which value."""

    def __init__(self, index: int, start_s: float = 0.0):
        time.sleep(start_s)  # a slow start-up (imports, envs, a build)
        self.index, self.value = index, None

    def set_value(self, value):
        self.value = value

    def become(self, index: int):
        self.index = index

    def work(self, seconds: float = 0.0):
        time.sleep(seconds)
        return self.index, self.value

    def fail(self, message: str):
        raise ValueError(message)


def collect(manager: ActorManager, count: int, timeout: float = 30.0) -> list:
    found, deadline = [], time.monotonic() + timeout
    while len(found) < count and time.monotonic() < deadline:
        found += manager.results(timeout=1.0)
    return found


def test_requests_are_capped_per_actor_and_come_back(ray_session):
    manager = ActorManager(Holder.remote, 2, max_in_flight=2)
    try:
        assert manager.call(0, Holder.work, 0.2) and manager.call(0, Holder.work, 0.2)
        assert not manager.call(0, Holder.work)  # two in flight already
        assert manager.in_flight(0) == 2 and manager.free(1)
        assert manager.call_all(Holder.work) == [1]
        results = collect(manager, 3)
        assert sorted(r.index for r in results) == [0, 0, 1] and all(r.ok for r in results), [r.error for r in results]
        assert manager.in_flight() == 0
    finally:
        manager.close()


def test_a_killed_actor_is_replaced_and_gets_the_current_state(ray_session):
    state = {"value": "weights-v1"}
    handed = []

    def resend(index, actor):
        handed.append(index)
        actor.set_value.remote(state["value"])

    manager = ActorManager(Holder.remote, 2, max_in_flight=1, on_restart=resend)
    try:
        for index in range(2):
            manager.actor(index).set_value.remote(state["value"])
        manager.call(0, Holder.work, 5.0)
        manager.call(1, Holder.work, 0.0)
        state["value"] = "weights-v2"
        ray.kill(manager.actor(0), no_restart=True)
        results = collect(manager, 2)
        died = [r for r in results if r.index == 0]
        assert died and isinstance(died[0].error, ray.exceptions.RayActorError)
        assert [r.value for r in results if r.index == 1] == [(1, "weights-v1")]
        assert manager.restarts == [1, 0] and handed == [0]
        manager.call(0, Holder.work)
        (result,) = collect(manager, 1)
        assert result.value == (0, "weights-v2")  # the new actor got the state before its first request
    finally:
        manager.close()


def test_a_spare_takes_a_killed_actors_place_and_a_new_spare_starts(ray_session):
    adopted = []

    def adopt(index, actor):
        adopted.append(index)
        actor.become.remote(index)

    manager = ActorManager(Holder.remote, 2, max_in_flight=1, spares=1, spare=lambda: Holder.remote(-1),
                           adopt=adopt, on_restart=lambda index, actor: actor.set_value.remote("current"))
    try:
        (spare,) = manager.spares
        assert ray.get(spare.work.remote()) == (-1, None)  # built and waiting
        manager.call(0, Holder.work, 5.0)  # under way when the kill lands
        ray.kill(manager.actor(0), no_restart=True)
        (died,) = collect(manager, 1)
        assert isinstance(died.error, ray.exceptions.RayActorError)
        assert manager.actor(0)._actor_id == spare._actor_id and adopted == [0]  # the spare, not a new actor
        assert manager.restarts == [1, 0] and manager.adopted == 1
        (new_spare,) = manager.spares
        assert new_spare._actor_id not in {spare._actor_id, manager.actor(1)._actor_id}
        manager.call(0, Holder.work)
        (result,) = collect(manager, 1)
        assert result.value == (0, "current")  # adopted as actor 0, then handed the current state
        manager.call(0, Holder.work, 5.0)
        ray.kill(manager.actor(0), no_restart=True)
        collect(manager, 1)
        assert manager.actor(0)._actor_id == new_spare._actor_id and adopted == [0, 0] and manager.adopted == 2
    finally:
        spares = list(manager.spares)
        manager.close()
    assert manager.spares == []
    with pytest.raises(ray.exceptions.RayActorError):  # closing kills the spares too
        ray.get(spares[0].work.remote(), timeout=30)


def _killed(actor) -> None:
    """Kills ``actor`` and returns once Ray reports it dead."""
    ray.kill(actor, no_restart=True)
    with pytest.raises(ray.exceptions.RayActorError):
        ray.get(actor.work.remote(), timeout=30)


def test_a_spare_that_died_while_it_waited_is_dropped_and_replaced_and_costs_no_restart(ray_session):
    adopted = []

    def adopt(index, actor):
        adopted.append(actor._actor_id)
        actor.become.remote(index)

    manager = ActorManager(Holder.remote, 1, max_in_flight=1, max_restarts=2, spares=2,
                           spare=lambda: Holder.remote(-1), adopt=adopt)
    try:
        first, second = manager.spares
        assert ray.get([first.work.remote(), second.work.remote()]) == [(-1, None)] * 2
        _killed(first)
        manager.call(0, Holder.work, 5.0)
        ray.kill(manager.actor(0), no_restart=True)
        collect(manager, 1)
        assert adopted == [second._actor_id] and manager.actor(0)._actor_id == second._actor_id
        assert manager.restarts == [1] and manager.adopted == 1 and manager.spares_lost == 1
        assert len(manager.spares) == 2 and first._actor_id not in {spare._actor_id for spare in manager.spares}
        manager.call(0, Holder.work)
        (result,) = collect(manager, 1)
        assert result.ok and result.value[0] == 0  # the live spare serves as actor 0
        for spare in manager.spares:  # every spare dead: the place goes to a new actor
            _killed(spare)
        manager.call(0, Holder.work, 5.0)
        ray.kill(manager.actor(0), no_restart=True)
        collect(manager, 1)
        assert manager.restarts == [2] and manager.adopted == 1 and manager.spares_lost == 3
        assert manager.actor(0)._actor_id not in adopted and len(manager.spares) == 2
        manager.call(0, Holder.work)
        (result,) = collect(manager, 1)
        assert result.ok and result.value[0] == 0
    finally:
        manager.close()


def test_a_spare_still_starting_up_is_taken_as_it_is(ray_session):
    adopted = []

    def adopt(index, actor):
        adopted.append(actor._actor_id)
        actor.become.remote(index)

    manager = ActorManager(Holder.remote, 1, max_in_flight=1, spares=1, spare=lambda: Holder.remote(-1, 4.0),
                           adopt=adopt)
    try:
        (starting,) = manager.spares
        manager.call(0, Holder.work, 5.0)
        ray.kill(manager.actor(0), no_restart=True)
        collect(manager, 1)
        assert adopted == [starting._actor_id] and manager.spares_lost == 0 and manager.restarts == [1]
        manager.call(0, Holder.work)
        (result,) = collect(manager, 1)
        assert result.ok and result.value[0] == 0  # served once it was up, as actor 0
    finally:
        manager.close()


def test_task_errors_are_kept_and_restart_only_when_asked(ray_session):
    keeping = ActorManager(Holder.remote, 1)
    try:
        keeping.call(0, Holder.fail, "env exploded")
        (result,) = collect(keeping, 1)
        assert isinstance(result.error, ValueError) and "env exploded" in str(result.error)
        assert keeping.restarts == [0] and keeping.errors == [result]
    finally:
        keeping.close()
    restarting = ActorManager(Holder.remote, 1, restart_on_error=True, max_restarts=1)
    try:
        restarting.call(0, Holder.fail, "first")
        collect(restarting, 1)
        assert restarting.restarts == [1]
        restarting.call(0, Holder.fail, "second")
        with pytest.raises(ActorFailed, match="actor 0 failed after 1 restarts: ValueError") as caught:
            collect(restarting, 1)
        assert isinstance(caught.value.cause, ValueError) and "second" in str(caught.value.cause)
    finally:
        restarting.close()


def test_a_request_past_hung_after_replaces_its_actor_and_the_others_go_on(ray_session):
    handed = []
    manager = ActorManager(Holder.remote, 2, max_in_flight=1, hung_after=2.0,
                           on_restart=lambda index, actor: handed.append(index))
    try:
        ray.get([manager.actor(index).work.remote() for index in range(2)])  # both started: no start-up counted
        stuck = manager.actor(0)
        manager.call(0, Holder.work, 600.0)  # never answers in time
        assert 0.0 <= manager.waiting(0) < 1.0 and manager.waiting(1) == 0.0
        answered = []
        deadline = time.monotonic() + 30
        while not manager.restarts[0] and time.monotonic() < deadline:
            if manager.free(1):
                manager.call(1, Holder.work, 0.1)
            answered += [r for r in manager.results(timeout=0.5) if r.ok]
        assert manager.restarts == [1, 0] and handed == [0] and manager.dropped == 0
        (hung,) = [r for r in manager.errors if r.index == 0]
        assert isinstance(hung.error, ActorHung) and hung.method == "work" and hung.actor is stuck
        assert re.search(r"actor 0's work request was under way for \d+ s \(hung_after: 2 s\)", str(hung.error))
        assert len(answered) >= 5 and {r.index for r in answered} == {1}  # the healthy actor served meanwhile
        assert manager.in_flight(0) == 0 and manager.actor(0) is not stuck
        with pytest.raises(ray.exceptions.RayActorError):  # the hung actor was killed
            ray.get(stuck.work.remote(), timeout=30)
        assert ray.get(manager.actor(0).work.remote(), timeout=60) == (0, None)  # its replacement answers
    finally:
        manager.close()


def test_an_actors_start_up_does_not_count_against_hung_after(ray_session):
    manager = ActorManager(lambda index: Holder.remote(index, 4.0), 1, hung_after=2.0)
    try:
        manager.call(0, Holder.work, 0.5)  # queued behind a 4-s start-up: answered ~4.5 s after it was sent
        (result,) = collect(manager, 1)
        assert result.ok and result.value == (0, None) and manager.restarts == [0], result.error
    finally:
        manager.close()


def test_the_local_session_listens_on_the_loopback_address(ray_session):
    assert ray_session["CPU"] == 2
    address = ray.get_runtime_context().gcs_address
    assert address.startswith("127.0.0.1:")


@pytest.mark.parametrize(("settings", "argument"), [({"count": 0}, "count"), ({"max_in_flight": 0}, "max_in_flight"),
                                                    ({"max_restarts": -1}, "max_restarts"), ({"spares": -1}, "spares"),
                                                    ({"hung_after": 0}, "hung_after"),
                                                    ({"spares": 1}, "spare"),
                                                    ({"spares": 1, "spare": object}, "adopt")])
def test_bad_settings_are_config_errors(settings, argument):
    from rlworkbench.errors import ConfigError

    made = []
    with pytest.raises(ConfigError) as caught:
        ActorManager(made.append, **{"count": 1, **settings})
    assert caught.value.argument == argument and made == []  # nothing started


def test_a_factory_that_fails_ends_the_actors_made_so_far_and_its_error_comes_through(monkeypatch):
    """No Ray needed: a manager whose factory (or spare maker) raises kills what it made and raises that error."""
    killed = []
    monkeypatch.setattr(ray, "kill", lambda actor, no_restart=True: killed.append(actor))

    def factory(index):
        if index == 1:
            raise ValueError("no room for actor 1")
        return f"actor {index}"

    with pytest.raises(ValueError, match="no room for actor 1"):
        ActorManager(factory, 3)
    assert killed == ["actor 0"]
    made = []

    class Named(str):
        """A stand-in actor handle: its name, and a readiness probe sent nowhere."""

        __ray_ready__ = SimpleNamespace(remote=lambda: None)

    def spare():
        if made:
            raise ValueError("no room for a second spare")
        made.append("spare 0")
        return Named("spare 0")

    with pytest.raises(ValueError, match="no room for a second spare"):
        ActorManager(factory, 1, spares=2, spare=spare, adopt=lambda index, actor: None)
    assert killed[1:] == ["actor 0", "spare 0"]
