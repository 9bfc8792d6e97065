#!/usr/bin/python3
"""What a user writes today: load without external data, loop over the nodes."""
import sys

import onnx

model = onnx.load(sys.argv[1], load_external_data=False)
ops = {}
for node in model.graph.node:
    ops[node.op_type] = ops.get(node.op_type, 0) + 1
print(len(model.graph.node), "nodes,", len(ops), "op types")
