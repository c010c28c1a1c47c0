"""Generates the gRPC stubs from the repository's proto/ at build time.

The stubs are not committed (the repository keeps no generated Python):
every build, editable or not, runs grpcio-tools' protoc on the .proto files
of proto/assignd/v1/ (assignment.proto and the files it imports) into
src/assignd/v1/, so they always match the contract of the checkout they are
built from. Building therefore needs the
whole repository (pip install ./client/python from a checkout), not
client/python alone.
"""

import os

from setuptools import Command, setup
from setuptools.command.build_py import build_py
from setuptools.command.editable_wheel import editable_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_ROOT = os.path.join(HERE, "..", "..", "proto")
PROTO = os.path.join("assignd", "v1", "assignment.proto")
OUT = os.path.join(HERE, "src")


def protos():
    """Every .proto of the package, so that assignment.proto's imports are
    generated beside it."""
    pkg = os.path.dirname(PROTO)
    return sorted(os.path.join(pkg, f) for f in os.listdir(os.path.join(PROTO_ROOT, pkg)) if f.endswith(".proto"))


def generate():
    from grpc_tools import protoc  # a build requirement (pyproject.toml)

    if not os.path.exists(os.path.join(PROTO_ROOT, PROTO)):
        raise SystemExit(
            "assignd: %s not found under %s: build from a checkout of the "
            "assignd repository" % (PROTO, os.path.normpath(PROTO_ROOT)))
    include = os.path.join(os.path.dirname(protoc.__file__), "_proto")
    rc = protoc.main([
        "grpc_tools.protoc",
        "-I" + PROTO_ROOT,
        "-I" + include,
        "--python_out=" + OUT,
        "--pyi_out=" + OUT,
        "--grpc_python_out=" + OUT,
    ] + protos())
    if rc != 0:
        raise SystemExit("assignd: protoc failed (%d)" % rc)


class GenerateStubs(Command):
    """python setup.py generate: the stubs only."""

    user_options = []

    def initialize_options(self):
        pass

    def finalize_options(self):
        pass

    def run(self):
        generate()


class BuildPy(build_py):
    def run(self):
        generate()
        super().run()


class EditableWheel(editable_wheel):
    def run(self):
        generate()
        super().run()


setup(cmdclass={"generate": GenerateStubs, "build_py": BuildPy, "editable_wheel": EditableWheel})
