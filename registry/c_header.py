#!/usr/bin/env python3
"""Writes registry.h: the registry tables as C X-macros for the kernel.

The CSV files in this folder are the one list of operations, topologies,
constructors, orders, datatypes, input parameters, layouts, type
constructors and packings. The kernel never spells
these lists itself; it expands the macros written here.

usage: c_header.py OUTPUT
"""
import csv
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent

# table -> the columns the kernel needs, each as (column, how to write it):
# "ident" a C identifier, "str" a C string, "int" a number, "raw" as is.
TABLES = {
    "operations": [("name", "ident"), ("family", "str"), ("pattern", "str"),
                   ("variant", "str"), ("blocking", "int"), ("persistent", "int"),
                   ("moves_data", "int"), ("send_blocks", "str"), ("recv_blocks", "str"),
                   ("work_reference", "ident")],
    "topologies": [("name", "ident"), ("constructors", "str"), ("orders", "str"),
                   ("grid", "int"), ("radius", "int")],
    "constructors": [("name", "ident")],
    "orders": [("name", "ident")],
    "datatypes": [("name", "ident"), ("mpi_type", "raw"), ("size", "int")],
    "arrivals": [("name", "ident")],
    "syncs": [("name", "ident")],
    "parameters": [("name", "ident"), ("type", "str"), ("applies_to", "str"), ("min", "bound"),
                   ("max", "bound")],
    "layouts": [("name", "ident"), ("parameters", "str"), ("normal", "str"), ("constructors", "str"),
                ("packings", "str"), ("msize", "str"), ("ops", "str"), ("topologies", "str")],
    "type_constructors": [("name", "ident")],
    "packings": [("name", "ident")],
}


def c_value(text, how):
    if how == "bound":  # a range bound as an unsigned 64-bit literal; empty: none
        return f"{int(text)}ULL" if text else "NBH_NO_BOUND"
    if how == "str":
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if how == "int":
        return str(int(text))
    if not text.replace("_", "").isalnum():
        raise ValueError(f"{text!r} is not a C identifier")
    return text


def macro(table, columns):
    with open(HERE / f"{table}.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    lines = [f"#define NBH_{table.upper()}(X) \\"]
    for row in rows:
        args = ", ".join(c_value(row[col], how) for col, how in columns)
        lines.append(f"    X({args}) \\")
    lines.append("")
    return "\n".join(lines)


def c_number(text):
    """A bound of limits.csv as a C literal: an integer (LL) or a double."""
    return f"{int(text)}LL" if re.fullmatch(r"-?\d+", text) else repr(float(text))


def limits():
    """registry/limits.csv as #defines: NBH_LIMIT_<NAME>_MIN, _MAX, _DEFAULT
    where given, and NBH_LIMIT_<NAME>: the default, else the maximum."""
    lines = []
    with open(HERE / "limits.csv", newline="") as f:
        for row in csv.DictReader(f):
            name = f"NBH_LIMIT_{row['name'].upper()}"
            for column in ("min", "max", "default"):
                if row[column]:
                    lines.append(f"#define {name}_{column.upper()} {c_number(row[column])}")
            lines.append(f"#define {name} {c_number(row['default'] or row['max'])}")
    return lines


def main(output):
    text = ["/* Generated from the registry CSV files by registry/c_header.py. Do not edit. */",
            "#ifndef NBH_REGISTRY_H", "#define NBH_REGISTRY_H", "",
            "#define NBH_NO_BOUND 0xffffffffffffffffULL", ""]
    text += [macro(table, columns) for table, columns in TABLES.items()]
    text += limits() + [""]
    text += ["#endif", ""]
    pathlib.Path(output).write_text("\n".join(text))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: c_header.py OUTPUT")
    main(sys.argv[1])
