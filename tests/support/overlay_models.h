// ONNX models whose node names match engine fixtures and the shared samples,
// for the overlay tests (the ONNX side of `report --engine`).
#pragma once
#include <string>

namespace trtlens::test {

// The model of tests/fixtures/engine/overlay (Conv_0 + Relu_1, Conv_3 + Add_4 +
// Relu_5, a Constant_2 shape, an Identity_6 TensorRT drops, Reshape_7, a
// /attn/MatMul ... /attn/MatMul_1 Myelin region, an unnamed Sigmoid known as
// node_of_probs, a custom-domain MyPlugin_12). Written to `path`; returns it.
std::string save_overlay_fixture_model(const std::string& path);

// The model of tests/fixtures/engine/v8 (8.x names, no Metadata): conv1 →
// relu1 → conv2 → pool (GlobalAveragePool) → flatten → softmax.
std::string save_v8_tiny_model(const std::string& path);

// ResNet18 as torchvision exports it (Conv_0, Relu_1, MaxPool_2, ...,
// GlobalAveragePool_46, Flatten_47, Gemm_48), with 8 channels throughout so
// it stays small: the node names of ../shared/engine-samples/resnet18-*.
std::string save_resnet18_names_model(const std::string& path);

}  // namespace trtlens::test
