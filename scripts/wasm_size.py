"""Prints the raw and gzip (level 9) size of a file and fails when gzip exceeds the budget in bytes."""
import gzip
import pathlib
import sys

path, budget = pathlib.Path(sys.argv[1]), int(sys.argv[2])
raw = path.read_bytes()
packed = len(gzip.compress(raw, compresslevel=9))
print(f"{path.name}: {len(raw)} bytes raw, {packed} bytes gzip ({packed / 1024:.1f} KB), budget {budget / 1024:.0f} KB")
if packed > budget:
    sys.exit(f"over budget by {packed - budget} bytes")
