#!/usr/bin/env python3
"""Exports popular torchvision architectures to ONNX with random weights (no downloads) for the
real-model regression suite. Usage: python3 tests/models/export.py OUT_DIR
Writes OUT_DIR/<model>_op<opset>.onnx, skipping files that exist, and OUT_DIR/exported.json listing
what was exported and what the exporter refused (name -> error). Exit 77 when torch is missing."""
import json
import os
import sys
import warnings

# (name, constructor name, input shape, opsets). Small inputs keep the export quick; shapes that
# the architecture constrains (ViT/Swin patch grids) keep their usual sizes.
MODELS = [
    ("resnet18", "resnet18", (1, 3, 64, 64), (11, 13, 17)),
    ("resnet50", "resnet50", (1, 3, 64, 64), (17,)),
    ("mobilenet_v2", "mobilenet_v2", (1, 3, 64, 64), (17,)),
    ("mobilenet_v3_small", "mobilenet_v3_small", (1, 3, 64, 64), (11, 13, 17)),
    ("efficientnet_b0", "efficientnet_b0", (1, 3, 64, 64), (13, 17)),
    ("convnext_tiny", "convnext_tiny", (1, 3, 64, 64), (17,)),
    ("vit_b_16", "vit_b_16", (1, 3, 224, 224), (13, 17)),
    ("swin_t", "swin_t", (1, 3, 224, 224), (17,)),
    ("ssdlite320", "ssdlite320_mobilenet_v3_large", (1, 3, 320, 320), (17,)),
    ("fasterrcnn_mobilenet", "fasterrcnn_mobilenet_v3_large_320_fpn", (1, 3, 320, 320), (17,)),
]


def export_efficientnms_detector(path):
    """A YOLO-style end-to-end export: a small anchor-free detector whose post-processing is replaced,
    as TensorRT's graph-surgeon recipes do, by one EfficientNMS_TRT node (the plugin every TensorRT
    since 8.0 bundles; attributes as in its plugin/efficientNMSPlugin/README.md)."""
    import onnx
    import torch
    from onnx import TensorProto, helper

    classes = 80

    class Detector(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = torch.nn.Sequential(
                torch.nn.Conv2d(3, 16, 3, 2, 1), torch.nn.SiLU(), torch.nn.Conv2d(16, 32, 3, 2, 1), torch.nn.SiLU(),
                torch.nn.Conv2d(32, 4 + classes, 1))

        def forward(self, x):
            y = self.body(x).flatten(2).permute(0, 2, 1)  # [1, anchors, 4 + classes]
            return y[..., :4], y[..., 4:].sigmoid()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Detector().eval(), (torch.randn(1, 3, 64, 64),), path + ".part", opset_version=17,
                          input_names=["images"], output_names=["boxes", "scores"])
    model = onnx.load(path + ".part")
    g = model.graph
    outs = [("num_detections", TensorProto.INT32, [1, 1]), ("detection_boxes", TensorProto.FLOAT, [1, 100, 4]),
            ("detection_scores", TensorProto.FLOAT, [1, 100]), ("detection_classes", TensorProto.INT32, [1, 100])]
    g.node.append(helper.make_node(
        "EfficientNMS_TRT", ["boxes", "scores"], [o[0] for o in outs], name="batched_nms",
        plugin_version="1", background_class=-1, max_output_boxes=100, score_threshold=0.25, iou_threshold=0.45,
        score_activation=0, class_agnostic=0, box_coding=0))
    del g.output[:]
    g.output.extend(helper.make_tensor_value_info(n, t, s) for n, t, s in outs)
    onnx.save(model, path + ".part")
    os.replace(path + ".part", path)


def main(argv):
    try:
        import torch
        import torchvision
    except ImportError as e:
        print(f"export: torch/torchvision not installed ({e})", file=sys.stderr)
        return 77
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(2)
    report = {"exported": [], "refused": {}}
    for name, ctor, shape, opsets in MODELS:
        fn = getattr(torchvision.models, ctor, None) or getattr(torchvision.models.detection, ctor)
        kwargs = {"weights": None}
        if "rcnn" in ctor or "ssd" in ctor:
            kwargs["weights_backbone"] = None
        model = fn(**kwargs).eval()
        x = torch.randn(*shape)
        args = ([x[0]],) if "rcnn" in ctor or "ssd" in ctor else (x,)
        for opset in opsets:
            path = os.path.join(out, f"{name}_op{opset}.onnx")
            tag = os.path.basename(path)
            if not os.path.exists(path):
                try:
                    # Not under torch.no_grad(): torch 1.13 exports nn.MultiheadAttention (ViT) only
                    # off its inference fast path, which autograd-enabled weights turn off.
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        torch.onnx.export(model, args, path + ".part", opset_version=opset, do_constant_folding=True)
                    os.replace(path + ".part", path)
                except Exception as e:  # the exporter's refusal is a fact of the suite, not a failure
                    report["refused"][tag] = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
                    if os.path.exists(path + ".part"):
                        os.remove(path + ".part")
                    continue
            report["exported"].append(tag)
            print(f"export: {tag}", flush=True)
    tag = "yolo_efficientnms_op17.onnx"
    path = os.path.join(out, tag)
    if not os.path.exists(path):
        export_efficientnms_detector(path)
    report["exported"].append(tag)
    print(f"export: {tag}", flush=True)
    with open(os.path.join(out, "exported.json"), "w") as f:
        json.dump(report, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
