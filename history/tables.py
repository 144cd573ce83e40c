"""Tables as the history's commands write them: CSV files and aligned text."""
import csv


def write_csv(path, rows, columns):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def print_table(rows, columns):
    """ROWS (dicts) as aligned text columns."""
    texts = [[str(r.get(c, "")) for c in columns] for r in rows]
    widths = [max([len(c)] + [len(t[i]) for t in texts]) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip())
    for t in texts:
        print("  ".join(x.ljust(w) for x, w in zip(t, widths)).rstrip())
