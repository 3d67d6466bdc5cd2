#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/e2e/hist_v1.py - a SQLite history of this perfgate's schema turned back into schema
version 1's layout, for the migration test:

    hist_v1.py DB          (SQLite: the file is changed)
    hist_v1.py --pg        (PostgreSQL: reads `session_id|object_id|hex of vals` lines, the
                           series rows, and prints the SQL that does it)

each series row (a session and object: for each metric its id, a varint length and its blob)
split into one row a metric, as versions 1 and 2 stored them, and the change points' cache
(version 2), the point table, the trend view and the generation (version 4), the change
points alerted on (version 5) and the sessions' environments (version 6) dropped.
"""
import sqlite3
import sys


def varint(b, i):
    x, shift = 0, 0
    while True:
        x |= (b[i] & 0x7f) << shift
        shift += 7
        i += 1
        if not b[i - 1] & 0x80:
            return x, i


def split(b):
    """(metric, blob) of a series row's blob"""
    i = 0
    while i < len(b):
        metric = b[i]
        n, i = varint(b, i + 1)
        yield metric, b[i:i + n]
        i += n


# what schema versions 4, 5 and 6 added
V4 = ("DROP VIEW trend; DROP TABLE point;"
      "DELETE FROM perfgate_history WHERE key = 'generation';"
      "DROP TABLE changes_alerted; DROP TABLE session_env;")


def postgres():
    print("BEGIN; DROP TABLE series; DROP TABLE changes_cache;" + V4 +
          "CREATE TABLE series(session_id BIGINT NOT NULL, object_id BIGINT NOT NULL,"
          " metric_id BIGINT NOT NULL, vals BYTEA NOT NULL,"
          " PRIMARY KEY(session_id, object_id, metric_id));"
          "UPDATE schema_version SET version = 1;")
    for line in sys.stdin:
        session, obj, vals = line.strip().split("|")
        for metric, blob in split(bytes.fromhex(vals)):
            print("INSERT INTO series VALUES(%s, %s, %d, '\\x%s');"
                  % (session, obj, metric, blob.hex()))
    print("COMMIT;")


def main():
    if sys.argv[1] == "--pg":
        return postgres()
    db = sqlite3.connect(sys.argv[1])
    rows = db.execute("SELECT session_id, object_id, vals FROM series").fetchall()
    db.executescript("DROP TABLE series; DROP TABLE changes_cache;" + V4 +
                     "CREATE TABLE series(session_id INTEGER NOT NULL, object_id INTEGER "
                     "NOT NULL, metric_id INTEGER NOT NULL, vals BLOB NOT NULL, PRIMARY "
                     "KEY(session_id, object_id, metric_id)) WITHOUT ROWID;"
                     "UPDATE schema_version SET version = 1;")
    for session, obj, b in rows:
        for metric, blob in split(b):
            db.execute("INSERT INTO series VALUES(?, ?, ?, ?)", (session, obj, metric, blob))
    db.commit()


if __name__ == "__main__":
    main()
