"""
==============================================================
  modelsound.py  —  hear your training run
==============================================================
Turns the loss into a continuous tone: high loss -> high pitch, low loss -> low
pitch, and a piercing siren the moment it goes NaN/inf. You can leave a run in
the background and *hear* when something breaks, instead of watching the log.

The pitch glides toward its target instead of jumping, so what you actually hear
is the SHAPE of the curve: a steady slide down means healthy training, a sudden
climb means the loss is going the wrong way, and the siren means the run is dead.

Requires the optional `sounddevice` package:
    pip install sounddevice
If it isn't installed, brsx just runs silently — nothing else changes.

Standalone test:  python modelsound.py
==============================================================
"""

import time
import threading

import numpy as np

try:
    import sounddevice as sd
    SOUND_AVAILABLE = True
except Exception:
    # sounddevice needs the PortAudio system library, which isn't present on
    # many servers/notebooks. Missing sound must never stop a training run.
    sd = None
    SOUND_AVAILABLE = False


class BRSXSoundManager:
    """Plays a tone whose pitch tracks the loss. All the audio work happens on
    background threads, so step() just sets a number — it never blocks training."""

    def __init__(self, sample_rate=44100):
        if not SOUND_AVAILABLE:
            raise RuntimeError("sounddevice is not installed")

        self.sample_rate = sample_rate

        # pitch range (Hz)
        self.min_freq = 350.0
        self.max_freq = 1100.0
        self.nan_freq = 1500.0      # unmistakable: something died

        self.current_freq = 500.0
        self.target_freq = 500.0

        self.is_running = True
        self.phase = 0.0
        self.volume = 0.1

        # glide settings: how fast the pitch chases its target
        self.step_size = 50.0
        self.step_interval = 0.05

        self.glide_thread = threading.Thread(target=self._glide_loop, daemon=True)
        self.glide_thread.start()

        self.stream = sd.OutputStream(
            channels=1,
            samplerate=self.sample_rate,
            callback=self._audio_callback,
            blocksize=512,
        )
        self.stream.start()

    def _glide_loop(self):
        while self.is_running:
            if self.current_freq != self.target_freq:
                diff = self.target_freq - self.current_freq
                if abs(diff) <= self.step_size:
                    self.current_freq = self.target_freq
                else:
                    self.current_freq += (1 if diff > 0 else -1) * self.step_size
            time.sleep(self.step_interval)

    def _audio_callback(self, outdata, frames, time_info, status):
        if not self.is_running:
            outdata.fill(0)
            return
        dp = 2 * np.pi * self.current_freq / self.sample_rate
        phases = self.phase + dp * np.arange(1, frames + 1)
        self.phase = phases[-1] % (2 * np.pi)
        outdata[:, 0] = np.sin(phases) * self.volume

    def step(self, loss):
        """Point the tone at a new loss value. Cheap: sets one float."""
        try:
            loss = float(loss)
        except (TypeError, ValueError):
            return
        if np.isnan(loss) or np.isinf(loss):
            self.target_freq = self.nan_freq
        else:
            clamped = min(max(loss, 0.0), 10.0)
            self.target_freq = min(self.min_freq + clamped * 80.0, self.max_freq)

    def play_success_melody(self):
        """Five short beeps at 600 Hz — training finished."""
        self.target_freq = 600.0
        self.current_freq = 600.0
        for _ in range(5):
            self.volume = 0.1
            time.sleep(0.1)
            self.volume = 0.0
            time.sleep(0.1)
        self.volume = 0.1          # restore, or every later tone is silent

    def close(self):
        self.is_running = False
        try:
            self.stream.stop()
            self.stream.close()
        except Exception:
            pass


def make_sound(enabled=True, verbose=True):
    """Build a sound manager if it's wanted and possible, else return None.
    Callers can then do `if snd: snd.step(loss)` and never worry about it again."""
    if not enabled:
        return None
    if not SOUND_AVAILABLE:
        if verbose:
            print("   (sound needs 'pip install sounddevice' — continuing silently)")
        return None
    try:
        return BRSXSoundManager()
    except Exception as e:
        if verbose:
            print(f"   (couldn't open an audio device: {e} — continuing silently)")
        return None


def ask_sound(default_yes=True):
    """Menu helper: ask whether to play the loss as sound."""
    d = "y" if default_yes else "n"
    print("   (plays the loss as a tone — pitch falls as the model learns,")
    print("    and a siren means the loss went NaN)")
    ans = input(f" > Sound feedback? (y/n) [{d}]: ").strip().lower()
    if not ans:
        ans = d
    return ans in ("y", "yes")


def run():
    """Standalone playground: type loss values and hear them."""
    print("\n" + "=" * 50)
    print("   brsx audio debugger")
    print("=" * 50)
    if not SOUND_AVAILABLE:
        print("  sounddevice isn't installed:  pip install sounddevice")
        return

    snd = BRSXSoundManager()
    print("  Type a loss value, 'nan', 'test' for the finish melody, or 'q'.")
    try:
        while True:
            val = input(" Loss: ").strip().lower()
            if val == "q":
                break
            if val == "test":
                snd.play_success_melody()
                continue
            if val == "nan":
                snd.step(float("nan"))
                print("  -> siren (NaN)")
                continue
            try:
                snd.step(float(val))
                print(f"  -> target {snd.target_freq:.0f} Hz | now {snd.current_freq:.0f} Hz")
            except ValueError:
                print("  not a number")
    finally:
        snd.close()


if __name__ == "__main__":
    run()
