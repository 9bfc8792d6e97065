#include "support/onnx_builder.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>
#include <stdexcept>

#include "support/paths.h"

namespace trtlens::test {
namespace {

void set_value_info(onnx::ValueInfoProto* vi, const std::string& name, int type, const std::vector<int64_t>& dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(type);
  auto* shape = tt->mutable_shape();
  for (int64_t d : dims) {
    auto* dim = shape->add_dim();
    if (d < 0) dim->set_dim_param("N");
    else dim->set_dim_value(d);
  }
}

}  // namespace

GraphBuilder& GraphBuilder::input(const std::string& name, int type, std::vector<int64_t> dims) {
  set_value_info(g_->add_input(), name, type, dims);
  return *this;
}

GraphBuilder& GraphBuilder::output(const std::string& name, int type, std::vector<int64_t> dims) {
  set_value_info(g_->add_output(), name, type, dims);
  return *this;
}

GraphBuilder& GraphBuilder::output(const std::string& name) {
  g_->add_output()->set_name(name);
  return *this;
}

GraphBuilder& GraphBuilder::init_float(const std::string& name, std::vector<int64_t> dims, std::vector<float> values) {
  auto* t = g_->add_initializer();
  t->set_name(name);
  t->set_data_type(kFloat);
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  return *this;
}

GraphBuilder& GraphBuilder::init_half(const std::string& name, std::vector<int64_t> dims) {
  auto* t = g_->add_initializer();
  t->set_name(name);
  t->set_data_type(kFloat16);
  int64_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  std::string raw;
  for (int64_t i = 0; i < n; ++i) raw += std::string("\x66\x2e", 2);  // 0x2E66: 0.1 in IEEE half, little endian
  t->set_raw_data(raw);
  return *this;
}

GraphBuilder& GraphBuilder::init_int64(const std::string& name, std::vector<int64_t> dims, std::vector<int64_t> values) {
  auto* t = g_->add_initializer();
  t->set_name(name);
  t->set_data_type(kInt64);
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(int64_t)));
  return *this;
}

GraphBuilder& GraphBuilder::init_external(const std::string& name, std::vector<int64_t> dims,
                                          const std::string& location, int64_t offset, int64_t length) {
  auto* t = g_->add_initializer();
  t->set_name(name);
  t->set_data_type(kFloat);
  for (int64_t d : dims) t->add_dims(d);
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  auto add = [&](const char* k, const std::string& v) {
    auto* e = t->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  add("location", location);
  add("offset", std::to_string(offset));
  add("length", std::to_string(length));
  return *this;
}

onnx::NodeProto& GraphBuilder::node(const std::string& op_type, std::vector<std::string> inputs,
                                    std::vector<std::string> outputs, const std::string& name,
                                    const std::string& domain) {
  auto* n = g_->add_node();
  n->set_op_type(op_type);
  n->set_name(name);
  if (!domain.empty()) n->set_domain(domain);
  for (auto& i : inputs) n->add_input(i);
  for (auto& o : outputs) n->add_output(o);
  return *n;
}

void attr_int(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void attr_ints(onnx::NodeProto& n, const std::string& name, std::vector<int64_t> v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void attr_float(onnx::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

void attr_string(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

void attr_tensor_int64(onnx::NodeProto& n, const std::string& name, std::vector<int64_t> dims, std::vector<int64_t> v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::TENSOR);
  auto* t = a->mutable_t();
  t->set_data_type(kInt64);
  for (int64_t d : dims) t->add_dims(d);
  for (int64_t x : v) t->add_int64_data(x);
}

GraphBuilder attr_graph(onnx::NodeProto& n, const std::string& name, const std::string& graph_name) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  a->mutable_g()->set_name(graph_name);
  return GraphBuilder(a->mutable_g());
}

ModelBuilder::ModelBuilder(int64_t opset) : m_(std::make_unique<onnx::ModelProto>()) {
  m_->set_ir_version(opset >= 21 ? 10 : 8);
  m_->set_producer_name("trtlens-tests");
  auto* o = m_->add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  m_->mutable_graph()->set_name("main");
}

ModelBuilder::~ModelBuilder() = default;

GraphBuilder ModelBuilder::graph() { return GraphBuilder(m_->mutable_graph()); }

ModelBuilder& ModelBuilder::opset(const std::string& domain, int64_t version) {
  auto* o = m_->add_opset_import();
  o->set_domain(domain);
  o->set_version(version);
  return *this;
}

void ModelBuilder::add_function(const std::string& name, const std::string& domain, std::vector<std::string> inputs,
                                std::vector<std::string> outputs) {
  auto* f = m_->add_functions();
  f->set_name(name);
  f->set_domain(domain);
  for (auto& i : inputs) f->add_input(i);
  for (auto& o : outputs) f->add_output(o);
  auto* op = f->add_opset_import();
  op->set_domain("");
  op->set_version(m_->opset_import(0).version());
}

onnx::NodeProto& ModelBuilder::function_node(const std::string& function, const std::string& domain,
                                             const std::string& op_type, std::vector<std::string> inputs,
                                             std::vector<std::string> outputs) {
  for (auto& f : *m_->mutable_functions()) {
    if (f.name() != function || f.domain() != domain) continue;
    auto* n = f.add_node();
    n->set_op_type(op_type);
    for (auto& i : inputs) n->add_input(i);
    for (auto& o : outputs) n->add_output(o);
    return *n;
  }
  throw std::runtime_error("no function " + function);
}

std::string ModelBuilder::bytes() const { return m_->SerializeAsString(); }

std::string ModelBuilder::save(const std::string& path) const {
  std::ofstream(path, std::ios::binary) << bytes();
  return path;
}

std::string save_external_data_model(const std::string& dir) {
  std::string w, b;
  for (int i = 0; i < 64; ++i) w += static_cast<char>(i + 1);
  for (int i = 0; i < 16; ++i) b += static_cast<char>(200 + i);
  write_text(dir + "/weights/w.bin", w);
  write_text(dir + "/b.bin", b);
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4});
  g.init_external("w", {4, 4}, "weights/w.bin", 0, 64);
  g.init_external("b", {4}, "b.bin", 0, 16);
  g.node("MatMul", {"x", "w"}, {"h"});
  g.node("Add", {"h", "b"}, {"y"});
  g.output("y", kFloat, {1, 4});
  return mb.save(dir + "/model.onnx");
}

std::string save_fp8_qdq_conv_model(const std::string& dir) {
  ModelBuilder mb(19);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 3, 8, 8});
  g.init_float("s", {}, {0.1f});
  g.init_float("w", {4, 3, 3, 3}, std::vector<float>(108, 0.1f));
  auto* zp = g.proto()->add_initializer();  // FLOAT8E4M3FN zero point: one zero byte
  zp->set_name("zp");
  zp->set_data_type(17);
  zp->set_raw_data(std::string(1, '\0'));
  g.node("QuantizeLinear", {"x", "s", "zp"}, {"q"}, "q");
  g.node("DequantizeLinear", {"q", "s", "zp"}, {"dq"}, "dq");
  g.node("QuantizeLinear", {"w", "s", "zp"}, {"wq"}, "wq");
  g.node("DequantizeLinear", {"wq", "s", "zp"}, {"wdq"}, "wdq");
  attr_ints(g.node("Conv", {"dq", "wdq"}, {"y"}, "conv"), "pads", {1, 1, 1, 1});
  g.output("y", kFloat, {1, 4, 8, 8});
  return mb.save(dir + "/fp8.onnx");
}

std::string save_conv_relu_model(const std::string& dir) {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 3, 8, 8});
  g.init_float("w", {4, 3, 3, 3}, std::vector<float>(108, 0.1f));
  attr_ints(g.node("Conv", {"x", "w"}, {"c"}, "conv"), "pads", {1, 1, 1, 1});
  g.node("Relu", {"c"}, {"y"}, "relu");
  g.output("y", kFloat, {1, 4, 8, 8});
  return mb.save(dir + "/m.onnx");
}

}  // namespace trtlens::test
