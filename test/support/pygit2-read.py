"""Reads objects with a real libgit2 (Debian's python3-pygit2), one Odb.read per object id on stdin,
in the order given, so that an LD_PRELOAD count of zlib's inflateInit calls (inflate-counter.ts)
measures libgit2's read path: git_odb_read_prefix with a full id checks the object cache
(git-internals §4.1), then git_packfile_unpack with the pack's base cache (§4.2).

usage: /usr/bin/python3 pygit2-read.py OBJECTS_DIR off|MAX_BYTES < ids (hex, one a line)
  off        the object cache disabled (GIT_OPT_ENABLE_CACHING 0)
  MAX_BYTES  the object cache on with GIT_OPT_SET_CACHE_MAX_SIZE = MAX_BYTES
Prints the number of objects read and their total size, to check that every read happened.
"""
import sys

import pygit2


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    objects_dir, cache = sys.argv[1], sys.argv[2]
    if cache == "off":
        pygit2.settings.enable_caching(False)
    else:
        pygit2.settings.enable_caching(True)
        pygit2.settings.cache_max_size(int(cache))
    odb = pygit2.Odb(objects_dir)
    ids = sys.stdin.read().split()
    total = 0
    for oid in ids:
        _type, data = odb.read(oid)
        total += len(data)
    print(len(ids), total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
