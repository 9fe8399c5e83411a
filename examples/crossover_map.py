"""Which allreduce wins where: for each p (a hypercube of 2^d processors) and each message size m,
the algorithm of least simulated time, printed as a map (one letter per algorithm)."""

import ppsim


def crossover_map(ps=(4, 8, 16, 32, 64), ms="1..2^12", ts=100, tw=1):
    """{p: [(m, winner), ...]} from ppsim.best, one call per p."""
    return {p: [(row["m"], row["best"]) for row in ppsim.best(op="allreduce", topology="hypercube", p=p, m=ms, ts=ts, tw=tw)["rows"]]
            for p in ps}


def main():
    winners = crossover_map()
    names = sorted({algo for row in winners.values() for _, algo in row})
    letter = {name: chr(ord("A") + i) for i, name in enumerate(names)}
    sizes = [m for m, _ in next(iter(winners.values()))]
    print("allreduce on a hypercube, t_s = 100, t_w = 1: the winner at each (p, m)")
    print("p \\ m  " + " ".join(f"{m:>6}" for m in sizes))
    for p, row in winners.items():
        print(f"{p:<6} " + " ".join(f"{letter[algo]:>6}" for _, algo in row))
    for name in names:
        print(f"  {letter[name]}: {name}")
    return winners


if __name__ == "__main__":
    main()
