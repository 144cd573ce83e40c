"""How long a campaign's runs take, as `generate` says it: a guess from
counts, not a measurement (docs/campaigns.md, "How long it takes").

    runs x (START + experiments x (SETUP + repetitions x REPETITION))

repetitions = nrep + one round's warm-up per round. The three times are
what demo and halo runs took on this project's 2-core VM under its usual
load (2026-11: the demo, 10 runs of 30 experiments, 89 s at a load
average of 11-16, guessed 56 s; halo at 1x2, 8 runs of 150 experiments,
about 5 minutes, guessed 3): the launch, a
topology and its buffers per experiment, and a repetition of a small
collective at a few processes with its two barriers. A repetition of a
large message, many processes or an oversubscribed machine takes longer;
one of a few bytes on a quiet machine far less: the real time can be a
fraction or a multiple of the guess. Runs are counted one after another,
as a local submit runs them (on Slurm, jobs may run side by side)."""

START_SECONDS = 1.0
SETUP_SECONDS = 0.005
REPETITION_SECONDS = 0.004


def seconds(runs, experiments, nrep, rounds, warmup):
    repetitions = nrep + rounds * warmup
    return runs * (START_SECONDS + experiments * (SETUP_SECONDS + repetitions * REPETITION_SECONDS))


def spoken(total):
    """'40 s', '3 min', '2.5 h'."""
    if total < 90:
        return f"{max(total, 1):.0f} s"
    if total < 90 * 60:
        return f"{total / 60:.0f} min"
    return f"{total / 3600:.1f} h"


def line(runs, experiments, nrep, rounds, warmup):
    """The summary line of generate."""
    repetitions = nrep + rounds * warmup
    return (f"estimated time: about {spoken(seconds(runs, experiments, nrep, rounds, warmup))} one run after "
            f"another ({runs} runs x ({START_SECONDS:g} s to start + {experiments} experiments x "
            f"{repetitions} repetitions x {REPETITION_SECONDS * 1000:g} ms)): a guess from counts, not a "
            "measurement; a large message, many processes or a loaded machine take longer")
