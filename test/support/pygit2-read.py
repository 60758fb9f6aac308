"""Reads objects with a real libgit2 (Debian's python3-pygit2), one read per object id on stdin,
in the order given, so that an LD_PRELOAD count of zlib's inflateInit calls (inflate-counter.ts)
measures libgit2's read path through the object cache (git-internals §4.1) and the pack's base
cache (§4.2).

usage: /usr/bin/python3 pygit2-read.py OBJECTS_DIR off|MAX_BYTES [odb|repo-odb|lookup] < ids
  off        the object cache disabled (GIT_OPT_ENABLE_CACHING 0)
  MAX_BYTES  the object cache on with GIT_OPT_SET_CACHE_MAX_SIZE = MAX_BYTES
  odb        (the default) Odb(OBJECTS_DIR).read: git_odb_read on an object database of its own
  repo-odb   Repository(the directory above OBJECTS_DIR).odb.read: git_odb_read on the repository's
             object database, whose cache is the repository's
  lookup     Repository(...)[id]: git_object_lookup, which keeps the raw object and then the parsed
             one in the same cache (§4.1)
Ids are hex, one a line. Prints the number of objects read and (through the object database) their
total size, to check that every read happened; lookup prints 0 for the size, since asking an
object for its size or data could read it again.
"""
import os
import sys

import pygit2


def main() -> int:
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    objects_dir, cache = sys.argv[1], sys.argv[2]
    path = sys.argv[3] if len(sys.argv) == 4 else "odb"
    if path not in ("odb", "repo-odb", "lookup"):
        print(__doc__, file=sys.stderr)
        return 2
    if cache == "off":
        pygit2.settings.enable_caching(False)
    else:
        pygit2.settings.enable_caching(True)
        pygit2.settings.cache_max_size(int(cache))
    ids = sys.stdin.read().split()
    total = 0
    if path == "odb":
        odb = pygit2.Odb(objects_dir)
        for oid in ids:
            _type, data = odb.read(oid)
            total += len(data)
    else:
        repo = pygit2.Repository(os.path.dirname(os.path.abspath(objects_dir)))
        if path == "repo-odb":
            odb = repo.odb
            for oid in ids:
                _type, data = odb.read(oid)
                total += len(data)
        else:
            for oid in ids:
                # Nothing is asked of the object: its size or data could read it again.
                repo[oid]
    print(len(ids), total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
