"""Unit tests of tools/importer_facts.py on small C++ snippets written here (no onnx-tensorrt clone needed).
Run: python3 -m unittest discover -s tests/tools (ctest runs it as tools.importer_facts)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import importer_facts as f  # noqa: E402

UNIVERSE = ["FP32", "FP16", "INT8", "UINT8", "INT32", "BOOL"]

HELPERS = """
NodeImportResult activationHelper(IImporterContext* ctx, std::vector<TensorOrWeights>& inputs, ActivationType op)
{
    CHECK(notInvalidType(inputs.at(0), {"INT32", "BOOL", "UINT8"}));
    return {{nullptr}};
}

NodeImportResult unaryHelper(IImporterContext* ctx, TensorOrWeights& input, nvinfer1::UnaryOperation op)
{
    auto const inputType = input.getType();
    bool validUnaryType = true;
    switch (op)
    {
    case nvinfer1::UnaryOperation::kNOT:
    {
        validUnaryType = inputType == nvinfer1::DataType::kBOOL;
        break;
    }
    default:
    {
        validUnaryType = (inputType != nvinfer1::DataType::kBOOL && inputType != nvinfer1::DataType::kINT32);
    }
    }
    ASSERT(validUnaryType && "bad type", ErrorCode::kUNSUPPORTED_NODE);
    return {{nullptr}};
}

void getKernelParams(OnnxAttrs const& attrs)
{
    auto k = attrs.get<std::vector<int>>("kernel_shape");
    auto s = attrs.get("strides", 1);
}
"""

IMPORTERS = """
DEFINE_BUILTIN_OP_IMPORTER(Relu)
{
    return activationHelper(ctx, inputs, nvinfer1::ActivationType::kRELU);
}

DEFINE_BUILTIN_OP_IMPORTER(Not)
{
    return unaryHelper(ctx, inputs.at(0), nvinfer1::UnaryOperation::kNOT);
}

DEFINE_BUILTIN_OP_IMPORTER(Exp)
{
    return unaryHelper(ctx, inputs.at(0), nvinfer1::UnaryOperation::kEXP);
}

DEFINE_BUILTIN_OP_IMPORTER(Pool)
{
    OnnxAttrs attrs(node, ctx);
    getKernelParams(attrs);
    auto tensor = convertToTensor(inputs.at(1), ctx);
    ASSERT((tensor.getType() == DataType::kFLOAT || tensor.getType() == DataType::kHALF) && "float only",
        ErrorCode::kUNSUPPORTED_NODE);
    return {{nullptr}};
}

DEFINE_BUILTIN_OP_IMPORTER(Branchy)
{
    if (inputs.at(0).isInt32())
    {
        return elementwiseThing(ctx, inputs);
    }
    return activationHelper(ctx, inputs, nvinfer1::ActivationType::kRELU);
}

DEFINE_BUILTIN_OP_IMPORTER(Range)
{
    bool const isInt32 = inputs.at(0).isInt32();
    bool const isFp32 = inputs.at(0).isFp32();
    ASSERT_NODE((isInt32 || isFp32), "int32 or float only", node, nodeIdx, ErrorCode::kUNSUPPORTED_NODE);
    return {{nullptr}};
}

DEFINE_BUILTIN_OP_IMPORTER(Chosen)
{
    auto chosen = pickType(attrs);
    ASSERT_NODE((chosen == DataType::kINT8), "int8 only", node, nodeIdx, ErrorCode::kINVALID_NODE);
    return {{nullptr}};
}
"""


def release(importers=IMPORTERS, helpers=HELPERS):
    r = f.Release.__new__(f.Release)
    r.branch = "test"
    r.sources = [f.Source("importers.cpp", importers), f.Source("utils.cpp", helpers)]
    r.funcs = {}
    for src in r.sources:
        for name, bodies in f.functions(src).items():
            r.funcs.setdefault(name, []).extend(bodies)
    r.ops = f.importers(r.sources[0], "DEFINE_BUILTIN_OP_IMPORTER")
    r.checkers = {}
    r.universe, r.int64 = UNIVERSE, None
    return r


def accepts(r, op):
    return f.accepts_column(r.op_facts(op)[1]["checks"], r.universe)


class ImporterFactsTest(unittest.TestCase):
    def setUp(self):
        self.r = release()

    def test_blacklist_in_a_helper_binds_the_importer(self):
        self.assertEqual(accepts(self.r, "Relu"), "0:FP32|FP16|INT8@utils.cpp:4")

    def test_switch_case_is_chosen_by_the_importers_enumerator(self):
        self.assertEqual(accepts(self.r, "Not"), "0:BOOL@utils.cpp:16")
        self.assertEqual(accepts(self.r, "Exp"), "0:FP32|FP16|INT8|UINT8@utils.cpp:21")

    def test_whitelist_is_traced_to_its_input(self):
        self.assertEqual(accepts(self.r, "Pool"), "1:FP32|FP16@importers.cpp:22")

    def test_attributes_are_read_through_helpers(self):
        self.assertEqual(self.r.op_facts("Pool")[1]["attrs"], {"kernel_shape", "strides"})

    def test_a_check_after_an_alternative_return_is_not_on_the_main_path(self):
        self.assertEqual(accepts(self.r, "Branchy"), "-")

    def test_bool_variables_in_a_condition_are_expanded(self):
        self.assertEqual(accepts(self.r, "Range"), "0:FP32|INT32@importers.cpp:40")

    def test_a_value_not_traced_to_an_input_binds_nothing(self):
        _, facts = self.r.op_facts("Chosen")
        self.assertEqual(f.accepts_column(facts["checks"], self.r.universe), "-")
        self.assertTrue(any(c.guessed for c in facts["checks"]))

    def test_line_numbers_survive_comments(self):
        src = f.Source("x.cpp", "/* one\n two */\n// three\nint f()\n{\n    return 0;\n}\n")
        body = f.functions(src)["f"][0]
        self.assertEqual(src.line(body.start), 5)


POW = """
NodeImportResult elementwiseHelper(IImporterContext* ctx, std::vector<TensorOrWeights>& inputs)
{
    CHECK(notInvalidType(inputs.at(0), {"INT32", "BOOL"}));
    CHECK(notInvalidType(inputs.at(1), {"INT32", "BOOL"}));
    ASSERT(scaleAllPositive && "Scale coefficients must all be positive", 0);
    return {{nullptr}};
}
"""
POW_IMPORTER = """
DEFINE_BUILTIN_OP_IMPORTER(Pow)
{
    if (inputs.at(1).isInt32())
    {
        inputs[1] = TensorOrWeights(castHelper(ctx, &convertToTensor(inputs.at(1), ctx), inputs.at(0).getType()));
    }
    return elementwiseHelper(ctx, inputs);
}
"""


def pow_release():
    return release(POW_IMPORTER, POW)


class ImporterChecksAndDeltasTest(unittest.TestCase):
    def test_a_replaced_input_is_exempt_from_the_helpers_every_input_check(self):
        r = pow_release()
        self.assertEqual(f.accepts_column(r.op_facts("Pow")[1]["checks"], r.universe), "0:FP32|FP16|INT8|UINT8@utils.cpp:4")

    def test_a_hand_read_check_is_found_in_a_helper_with_its_line(self):
        r = pow_release()
        bodies = r.op_facts("Pow")[1]["bodies"]
        checks = [("Pow", "value_in(1,>0)", "Scale coefficients must all be positive"),
                  ("Pow", "rank(0,4)", "text the code does not have"), ("Abs", "rank(0,4)", "Scale coefficients")]
        self.assertEqual(f.rules_column("Pow", bodies, checks), "value_in(1,>0)#utils.cpp:6")

    def test_chain_reads_own_files_and_carries_the_others_per_file(self):
        import tempfile
        d = tempfile.mkdtemp()
        chain = os.path.join(d, "delta")
        os.makedirs(chain)
        base = os.path.join(d, "10.10.tsv")
        with open(base, "w") as out:
            out.write("# release: 10.10\n# branch: 10.10-GA\n# commit: " + "a" * 40 + "\n# types: FP32 INT32\n"
                      "# policy.int64: native@importerUtils.cpp:333\n"
                      "op\tsrc\taccepts\tattrs_read\tinputs_read\tchecks\trules\n"
                      "Abs\tonnxOpImporters.cpp:143\t0:FP32@importerUtils.cpp:1874\t-\t0\t-\t-\n")
        sources = os.path.join(d, "sources.tsv")
        with open(sources, "w") as out:
            out.write("release\tfile\tcommit\tid\tchars\tread\ttie\n"
                      "10.11\tonnxOpImporters.cpp\t" + "b" * 40 + "\t1\t9\tall\tpin\n"
                      "10.12\timporterUtils.cpp\t" + "c" * 40 + "\t2\t9\t0-16000\tpin\n")
        with open(os.path.join(chain, "10.11.tsv"), "w") as out:
            out.write("# release: 10.11\n# commit: " + "b" * 40 + "\n# date: 2025-05-16\n"
                      "op\tsrc\taccepts\tattrs_read\tinputs_read\tnote\n"
                      "Abs\tonnxOpImporters.cpp:142\t=\t=\t=\t-\n"
                      "Swish\tonnxOpImporters.cpp:6688\t-\talpha\t0\tNEW\n")
        with open(os.path.join(chain, "10.12.tsv"), "w") as out:
            out.write("# release: 10.12\n# commit: " + "c" * 40 + "\n# date: 2025-06-16\n"
                      "# fact.policy.int64: native@importerUtils.cpp:331\n"
                      "op\tsrc\taccepts\tattrs_read\tinputs_read\tnote\n")
        run = ["x", "--chain", chain, "--base", base, "--sources", sources, d]
        self.assertEqual(f.main(run), 0)
        with open(os.path.join(d, "10.11.tsv")) as got:
            text = got.read()
        self.assertIn("# policy.int64: native@importerUtils.cpp:333 (carried forward from 10.10-GA)", text)
        self.assertIn("Abs\tonnxOpImporters.cpp:142\t0:FP32@importerUtils.cpp:1874 (carried forward from 10.10-GA)"
                      "\t-\t0", text)
        self.assertIn("Swish\tonnxOpImporters.cpp:6688\t-\talpha\t0\t-\t-", text)
        with open(os.path.join(d, "10.12.tsv")) as got:
            text = got.read()
        self.assertIn("# policy.int64: native@importerUtils.cpp:331\n", text)
        # 10.12 stores no importer: 10.11's rows, each marked once (the 10.10 mark stays).
        self.assertIn("Abs\tonnxOpImporters.cpp:142 (carried forward from 10.11-GA)\t"
                      "0:FP32@importerUtils.cpp:1874 (carried forward from 10.10-GA)\t", text)
        # A fact of a file sources.tsv does not list as read, and an '=' for an op 10.10 lacks, are refused.
        with open(os.path.join(chain, "10.11.tsv"), "a") as out:
            out.write("Gelu\tonnxOpImporters.cpp:9\t=\t=\t=\t-\n")
        with self.assertRaises(SystemExit):
            f.main(run)
        with open(os.path.join(chain, "10.11.tsv")) as fixed:
            kept = fixed.read().replace("Gelu\tonnxOpImporters.cpp:9\t=\t=\t=\t-\n", "")
        with open(os.path.join(chain, "10.11.tsv"), "w") as out:
            out.write(kept)
        with open(os.path.join(chain, "10.12.tsv"), "w") as out:
            out.write("# release: 10.12\n# commit: " + "c" * 40 + "\n# date: 2025-06-16\n"
                      "# fact.policy.uint8_boundary: yes@ModelImporter.cpp:320\n"
                      "op\tsrc\taccepts\tattrs_read\tinputs_read\tnote\n")
        with self.assertRaises(SystemExit):
            f.main(run)

if __name__ == "__main__":
    unittest.main()
