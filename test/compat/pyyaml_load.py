"""Loads scenario files the way Pipecat's evals do, with PyYAML, and prints them as JSON.

PyYAML's SafeLoader with one change Pipecat makes: integers are plain decimal only
(so `dtmf: 012` stays the string "012"), and `!include <path>` splices in another
file, resolved relative to the including file. Used by the compat tests to check
that earshot reads every corpus file into the same data.
"""
import json
import os
import re
import sys

import yaml


class Loader(yaml.SafeLoader):
    pass


Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:int"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
yaml.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^[-+]?(?:0|[1-9][0-9_]*)$"), list("-+0123456789"), Loader=Loader
)


def load(path):
    def include(loader, node):
        target = os.path.join(os.path.dirname(path), loader.construct_scalar(node))
        return load(target)

    class FileLoader(Loader):
        pass

    FileLoader.add_constructor("!include", include)
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, FileLoader)


print(json.dumps({p: load(p) for p in sys.argv[1:]}, default=str))
