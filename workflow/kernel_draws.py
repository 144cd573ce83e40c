"""The kernel's random draws, reproduced from what a run records
(docs/kernel.md, "Seeds" and "Interleaved rounds"): the run seed of its
input, PREFIX.seeds.csv and the formulas of its PREFIX.prov.json. The same
arithmetic as kernel/seeds.c, kernel/rounds.c and kernel/arrival.c, so that
a run can be checked and reproduced without the kernel:

    process_seed(run_seed, ident, rank)   a process's seed (seed_formula)
    round_seed(seed, round_number)        what it draws round r from (round_seed_formula)
    round_order(experiments, round_number)  the order the kernel measures round r in (round_order_formula)
    uniform_delays(seed, round_number, d, n)  its first n uniform delays of round r (arrival_formula)
    full_rand_lists(seed, round_number, rank, p)  its RAND Full neighborhood of round r
    rand_lists(seed, round_number, sources, destinations)  its RAND graph lists of round r
    buffer_places(seed, round_number, n)  where its first n data buffers of round r lie in their pages
"""
MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
ROUND_SEED_STREAM = 0x632BE59BD9B4E019   # kernel/seeds.h
ARRIVAL_STREAM = 0x5851F42D4C957F2D      # kernel/arrival.h
BUFFER_STREAM = 0x2545F4914F6CDD1D       # kernel/data_buffers.h
BUFFER_ALIGNMENT, BUFFER_PAGE = 64, 4096


def mix64(z):
    """The splitmix64 finalizer."""
    z &= MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


class Stream:
    """splitmix64 from STATE: rng_next and rng_below of kernel/seeds.c."""

    def __init__(self, state):
        self.state = state & MASK

    def next(self):
        self.state = (self.state + GOLDEN) & MASK
        return mix64(self.state)

    def below(self, n):
        limit = MASK - MASK % n
        while True:
            x = self.next()
            if x < limit:
                return x % n

    def shuffle(self, items):
        """Fisher-Yates in place, from the end (rng_shuffle)."""
        for i in range(len(items), 1, -1):
            j = self.below(i)
            items[j], items[i - 1] = items[i - 1], items[j]
        return items


def process_seed(run_seed, ident, rank):
    return mix64(mix64(run_seed) ^ mix64(ident + GOLDEN) ^ mix64(rank + 0xD1B54A32D192ED03))


def round_seed(seed, round_number):
    """Round 1 draws from the process seed itself, round r > 1 from its own."""
    return seed if round_number <= 1 else mix64(seed ^ mix64(round_number + ROUND_SEED_STREAM))


def round_order(experiments, round_number):
    """The ids of EXPERIMENTS (dicts with id, seed, blocks, first_round, in
    the input's order; blocks 1 and first_round 1 where missing) in the
    order the kernel measures round ROUND_NUMBER: round 1 the input's
    order, round r > 1 a Fisher-Yates shuffle of it by the stream seeded
    with mix(seed ^ mix(r)), seed the first experiment's; an experiment
    takes part in rounds first_round..blocks."""
    indices = list(range(len(experiments)))
    if round_number > 1 and len(experiments) > 1:
        Stream(mix64(int(experiments[0]["seed"]) ^ mix64(round_number))).shuffle(indices)
    chosen = [experiments[i] for i in indices]
    return [int(e["id"]) for e in chosen
            if int(e.get("first_round") or 1) <= round_number <= int(e.get("blocks") or 1)]


def uniform_delays(seed, round_number, max_us, n):
    """The first N uniform delays (us) of a process with seed SEED (its row of
    PREFIX.seeds.csv) in round ROUND_NUMBER: one per attempt, the round's
    warm-up attempts first (the attempt column of PREFIX.delays.csv)."""
    stream = Stream(round_seed(seed, round_number) ^ ARRIVAL_STREAM)
    return [max_us * (stream.next() >> 11) / 2 ** 53 for _ in range(n)]


def rand_lists(seed, round_number, sources, destinations):
    """SOURCES and DESTINATIONS (lists, in their given order) as a process
    with seed SEED orders them RAND in round ROUND_NUMBER: both shuffled by
    the round's stream, sources first (a graph's lists in file order:
    kernel/topologies/graph.c)."""
    stream = Stream(round_seed(seed, round_number))
    return stream.shuffle(list(sources)), stream.shuffle(list(destinations))


def full_rand_lists(seed, round_number, rank, p):
    """(sources, destinations) of process RANK of P in a RAND Full
    neighborhood in round ROUND_NUMBER (kernel/topologies/full.c): the
    LINEAR lists, shuffled."""
    return rand_lists(seed, round_number, [(rank + 1 + i) % p for i in range(p - 1)],
                      [(rank - 1 - i) % p for i in range(p - 1)])


def buffer_places(seed, round_number, n):
    """Where the first N data buffers a process allocates in round
    ROUND_NUMBER lie in their pages (bytes past the page's start); SEED is
    its process seed by its rank in the run (data_buffers.h)."""
    stream = Stream(round_seed(seed, round_number) ^ BUFFER_STREAM)
    return [BUFFER_ALIGNMENT * (1 + stream.below(BUFFER_PAGE // BUFFER_ALIGNMENT)) % BUFFER_PAGE for _ in range(n)]
