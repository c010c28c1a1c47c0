"""The assignd.v1 API (proto/assignd/v1/assignment.proto).

assignment_pb2 and assignment_pb2_grpc beside this file are generated at
build time by grpcio-tools (setup.py) and not committed.
"""
