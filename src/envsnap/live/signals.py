"""Pass signals from ``envsnap run`` to its workload, exactly once, and survive them.

Forwarded, as ``timeout(1)`` and ``tini`` do: SIGINT, SIGTERM, SIGHUP (stop), SIGQUIT, SIGUSR1 and
SIGUSR2 (a workload's own meaning: dump stacks, checkpoint, rotate logs) and SIGWINCH (the
terminal was resized). Without the relay SIGUSR1/2 would kill envsnap (their default action) and
orphan the workload, and a resize sent with ``kill -WINCH`` would never reach it.

A Ctrl-C on the terminal is sent by the kernel to the whole foreground process group: the
workload gets it directly. If envsnap also forwarded it, the workload would see two interrupts
(and a Python program would be interrupted again inside its own cleanup). A signal sent to
envsnap alone (``kill -INT <pid>``, a scheduler's SIGTERM) must be forwarded, or the workload never
hears of it. The two cases differ only in ``si_code`` (SI_KERNEL from the terminal, SI_USER from
``kill``), which a Python signal handler never sees; so on Linux the signals are blocked in every
thread and collected by one thread with ``sigtimedwait``, which does return ``si_code``.
Elsewhere (macOS has no ``sigtimedwait``) handlers forward every signal.

Either way envsnap itself doesn't die: it waits for the workload and writes its report.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType

FORWARDED = (
    signal.SIGINT,
    signal.SIGTERM,
    signal.SIGHUP,
    signal.SIGQUIT,
    signal.SIGUSR1,
    signal.SIGUSR2,
    signal.SIGWINCH,
)

_SI_KERNEL = 0x80
"""``si_code`` of signals the kernel generates itself, e.g. a terminal's Ctrl-C (asm-generic/siginfo.h)."""


class SignalRelay:
    """Collects the signals envsnap receives while a workload runs and forwards those meant for it.

    Args:
        forward: sends a signal to the workload (e.g. ``Popen.send_signal``).
    """

    def __init__(self, forward: Callable[[int], None]) -> None:
        self._forward = forward
        self.received: list[str] = []
        self.forwarded: list[str] = []
        self._done = threading.Event()
        self._lock = threading.Lock()

    def handle(self, signum: int, from_terminal: bool) -> None:
        """Record one signal and forward it unless the terminal already delivered it to the workload."""
        name = signal.Signals(signum).name
        with self._lock:
            self.received.append(name)
            if from_terminal:
                return
            self.forwarded.append(name)
        with contextlib.suppress(ProcessLookupError):
            self._forward(signum)

    def _wait_loop(self) -> None:
        while not self._done.is_set():
            info = signal.sigtimedwait(FORWARDED, 1.0)
            if info is not None and not self._done.is_set():  # after "done", a signal is only the wake-up
                self.handle(info.si_signo, info.si_code == _SI_KERNEL)

    @contextlib.contextmanager
    def installed(self, start: Callable[[], None]) -> Iterator[None]:
        """Run ``start`` (which starts the workload) and relay signals until the block exits.

        The workload is started before signals are blocked, because a child inherits the signal
        mask. Signals in the short gap reach a plain handler that forwards them.
        """
        if threading.current_thread() is not threading.main_thread():
            start()  # only the main thread may install handlers; the caller handles signals then
            yield
            return
        previous = {signum: signal.signal(signum, self._plain_handler) for signum in FORWARDED}
        use_wait = hasattr(signal, "sigtimedwait") and hasattr(signal, "pthread_sigmask")
        waiter: threading.Thread | None = None
        try:
            start()
            if use_wait:
                signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED)
                waiter = threading.Thread(target=self._wait_loop, name="envsnap-signals", daemon=True)
                waiter.start()
            yield
        finally:
            self._done.set()
            if waiter is not None:
                # Wake the waiter now rather than at its next timeout; the workload is gone, so
                # nothing is lost if a real signal is swallowed in the same instant.
                if waiter.ident is not None:  # always set once started
                    with contextlib.suppress(OSError):
                        signal.pthread_kill(waiter.ident, signal.SIGTERM)
                waiter.join()
                # Drain what arrived after the waiter stopped, before unblocking delivers it as a crash.
                while (info := signal.sigtimedwait(FORWARDED, 0)) is not None:
                    self.handle(info.si_signo, info.si_code == _SI_KERNEL)
                signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)
            for signum, handler in previous.items():
                signal.signal(signum, handler)

    def _plain_handler(self, signum: int, frame: FrameType | None) -> None:
        self.handle(signum, from_terminal=False)


def exit_status(returncode: int) -> tuple[int, str | None]:
    """Popen's return code as a shell reports it: ``-n`` (killed by signal n) becomes ``128+n``."""
    if returncode >= 0:
        return returncode, None
    signum = -returncode
    try:
        name: str | None = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    return 128 + signum, name
