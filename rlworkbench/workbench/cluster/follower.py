"""Following a cluster job's log from a daemon thread: every complete line, in order, once.

``JobSubmissionClient.tail_job_logs`` streams a job's log from its first line over a websocket, in chunks that
need not end at line ends, until the job ends. :class:`LogFollower` runs it on an event loop of its own thread,
cuts the chunks into lines and hands each to ``on_line``. A dropped connection is opened again and the lines
already handed on are skipped (the log only grows), so a reconnect neither loses nor repeats a line. Once the job
is in a terminal state the whole log is read once more (``get_job_logs``) for any line the stream did not bring.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ray.job_submission import JobSubmissionClient

RETRY_SECONDS = 1.0


class LogFollower:
    """Hands each line of job ``submission_id``'s log to ``on_line``; ``on_end()`` runs once the job is over and
    its log read to the end (or :meth:`close` was called)."""

    def __init__(self, client: JobSubmissionClient, submission_id: str, on_line: Callable[[str], None],
                 on_end: Callable[[], None]):
        self.client, self.submission_id = client, submission_id
        self.on_line, self.on_end = on_line, on_end
        self.lines = 0  #: complete lines handed on so far
        self.last_error: BaseException | None = None  #: the latest failure of the stream (it is retried)
        self._closing, self.done = threading.Event(), threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task | None = None
        self._thread = threading.Thread(target=self._main, name=f"rlworkbench-follow-{submission_id}", daemon=True)

    def start(self) -> LogFollower:
        self._thread.start()
        return self

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closing.is_set()

    def close(self, timeout: float = 5.0) -> None:
        """Stops following (the job itself goes on)."""
        self._closing.set()
        loop, task = self._loop, self._task
        if loop is not None and task is not None:
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:  # the loop closed meanwhile
                pass
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    # ----- the thread ----------------------------------------------------------------------------------------
    def _main(self) -> None:
        try:
            while not self._closing.is_set():
                self._follow_once()
                if self._closing.is_set():
                    break
                try:
                    terminal = self.client.get_job_status(self.submission_id).is_terminal()
                except Exception as error:  # the cluster went away for a moment: try again
                    self.last_error, terminal = error, False
                if terminal:
                    self._read_the_rest()
                    break
                self._closing.wait(RETRY_SECONDS)
        finally:
            try:
                self.on_end()
            finally:
                self.done.set()

    def _follow_once(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            self._task = loop.create_task(self._stream())
            loop.run_until_complete(self._task)
        except asyncio.CancelledError:
            pass
        except Exception as error:
            self.last_error = error
        finally:
            self._loop = self._task = None
            loop.close()

    async def _stream(self) -> None:
        skip, pending = self.lines, ""
        async for chunk in self.client.tail_job_logs(self.submission_id):
            pending += chunk
            *complete, pending = pending.split("\n")
            for line in complete:
                if skip:
                    skip -= 1
                    continue
                self._hand_on(line)

    def _read_the_rest(self) -> None:
        try:
            text = self.client.get_job_logs(self.submission_id)
        except Exception as error:
            self.last_error = error
            return
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for line in lines[self.lines:]:
            self._hand_on(line)

    def _hand_on(self, line: str) -> None:
        self.lines += 1
        self.on_line(line)
