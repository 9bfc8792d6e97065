#!/usr/bin/python3
"""Generates the detection-like model of the partition benchmark (Debian's python3-onnx).

  detect/model.onnx   ~1,000 nodes: custom pre-processing, a ResNet-style backbone (Conv, BatchNormalization,
                      Relu, Add), a 3-level feature pyramid (Resize, Add), per-level heads (Conv, Sigmoid,
                      Reshape, Transpose, Concat), custom box decoding per level and a custom NMS at the end.
                      Weights (~25 M parameters) are external data in weights.bin, a sparse file: its
                      zeros take no disk, and `partition -o` copies them with copy_file_range.

The custom-domain ops (com.example) have no plugin, so TensorRT takes the backbone and the heads
and leaves pre-processing, box decoding and NMS to another runtime: several regions and boundaries.

Usage: gen_detect.py OUT_DIR
"""
import os
import sys

from onnx import TensorProto, helper
import onnx

OPSET = 17


class Builder:
    def __init__(self):
        self.nodes, self.inits, self.offset, self.count = [], [], 0, 0
        self.value_info, self.custom_shape = [], None

    def name(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    def weight(self, dims):
        name = self.name("w")
        t = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=dims)
        t.data_location = TensorProto.EXTERNAL
        length = 4
        for d in dims:
            length *= d
        for k, v in (("location", "weights.bin"), ("offset", str(self.offset)), ("length", str(length))):
            e = t.external_data.add()
            e.key, e.value = k, v
        self.offset += length
        self.inits.append(t)
        return name

    def const_i64(self, values):
        name = self.name("shape")
        self.inits.append(helper.make_tensor(name, TensorProto.INT64, [len(values)], values))
        return name

    def const_f(self, values):
        name = self.name("scales")
        self.inits.append(helper.make_tensor(name, TensorProto.FLOAT, [len(values)], values))
        return name

    def node(self, op, inputs, domain="", **attrs):
        out = self.name(op.lower())
        if domain:  # exporters declare what custom ops produce; inference cannot know it
            self.value_info.append(helper.make_tensor_value_info(out, TensorProto.FLOAT, self.custom_shape))
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, domain=domain, **attrs))
        return out

    def conv_bn_relu(self, x, cin, cout, k=3, stride=1, relu=True):
        y = self.node("Conv", [x, self.weight([cout, cin, k, k])], pads=[k // 2] * 4, strides=[stride, stride])
        y = self.node("BatchNormalization", [y] + [self.weight([cout]) for _ in range(4)])
        return self.node("Relu", [y]) if relu else y

    def block(self, x, cin, cout, stride):
        y = self.conv_bn_relu(x, cin, cout, 3, stride)
        y = self.conv_bn_relu(y, cout, cout, 3, 1, relu=False)
        skip = x if stride == 1 and cin == cout else self.conv_bn_relu(x, cin, cout, 1, stride, relu=False)
        return self.node("Relu", [self.node("Add", [y, skip])])


def build(out_dir):
    b = Builder()
    b.custom_shape = [1, 3, 512, 512]
    x = b.node("Normalize", ["image"], domain="com.example")
    x = b.conv_bn_relu(x, 3, 32, 3, 2)
    levels, cin = [], 32
    for stage, (cout, blocks) in enumerate([(64, 24), (128, 40), (192, 40), (256, 30)]):
        for i in range(blocks):
            x = b.block(x, cin, cout, 2 if i == 0 else 1)
            cin = cout
        if stage >= 1:
            levels.append(x)
    # Feature pyramid: lateral 1x1 convs, top-down upsampling.
    lat = [b.node("Conv", [f, b.weight([128, c, 1, 1])]) for f, c in zip(levels, [128, 192, 256])]
    for i in range(len(lat) - 2, -1, -1):
        up = b.node("Resize", [lat[i + 1], "", b.const_f([1.0, 1.0, 2.0, 2.0])], mode="nearest")
        lat[i] = b.node("Add", [lat[i], up])
    scores, boxes = [], []
    for f in lat:
        h = f
        for _ in range(4):
            h = b.conv_bn_relu(h, 128, 128)
        cls = b.node("Sigmoid", [b.node("Conv", [h, b.weight([80 * 9, 128, 3, 3])], pads=[1] * 4)])
        cls = b.node("Reshape", [b.node("Transpose", [cls], perm=[0, 2, 3, 1]), b.const_i64([1, -1, 80])])
        reg = b.node("Conv", [h, b.weight([4 * 9, 128, 3, 3])], pads=[1] * 4)
        reg = b.node("Reshape", [b.node("Transpose", [reg], perm=[0, 2, 3, 1]), b.const_i64([1, -1, 4])])
        scores.append(cls)
        b.custom_shape = [1, "anchors", 4]  # rank known, length symbolic (a part must declare a rank)
        boxes.append(b.node("DecodeBoxes", [reg], domain="com.example"))
    s = b.node("Concat", scores, axis=1)
    d = b.node("Concat", boxes, axis=1)
    b.nodes.append(helper.make_node("NMS", [d, s], ["detections"], name="nms", domain="com.example"))

    graph = helper.make_graph(b.nodes, "detect", [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 512, 512])],
                              [helper.make_tensor_value_info("detections", TensorProto.FLOAT, [1, 100, 6])],
                              initializer=b.inits, value_info=b.value_info)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid("com.example", 1)],
                              producer_name="trtlens-bench")
    folder = os.path.join(out_dir, "detect")
    os.makedirs(folder, exist_ok=True)
    onnx.save_model(model, os.path.join(folder, "model.onnx"))
    with open(os.path.join(folder, "weights.bin"), "wb") as f:
        f.truncate(b.offset)  # sparse: no disk used for the zeros
    return len(b.nodes), b.offset


if __name__ == "__main__":
    nodes, size = build(sys.argv[1])
    print(f"detect/model.onnx: {nodes} nodes, {size / 1e6:.0f} MB of weights")
