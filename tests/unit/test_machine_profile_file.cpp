// Machine profile files (workflow/machine_profile_file.hpp): what the writer prints reads back
// as the same profile, and every malformed profile is refused at its file:line:col and field.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "core/content_hash.hpp"
#include "core/error.hpp"
#include "ia/machine_profile.hpp"
#include "temp_dir.hpp"
#include "workflow/machine_profile_file.hpp"

using namespace tra;
using tra::testing::TempDir;
using workflow::load_machine_profile;
using workflow::machine_profile_yaml;

namespace {

// A hand-written profile; the comments are line numbers the error tests name.
const std::string kProfile =
    "# a profile\n"                                                      // 1
    "format: tra-machine/1\n"                                            // 2
    "name: testhost\n"                                                   // 3
    "blas: {core: Haswell, threads: 2}\n"                                // 4
    "ranks: 3\n"                                                         // 5
    "dtypes:\n"                                                          // 6
    "  f64:\n"                                                           // 7
    "    gemm:\n"                                                        // 8
    "      - {size: 64, flops_per_second: 1.5e10}\n"                     // 9
    "      - {size: 512, flops_per_second: 4.25e10}\n"                   // 10
    "    loop_flops_per_second: 6.0e8\n"                                 // 11
    "  f32:\n"                                                           // 12
    "    gemm: [{size: 128, flops_per_second: 8.0e10}]\n"                // 13
    "    loop_flops_per_second: 7.5e8\n"                                 // 14
    "memory_bytes_per_second: 5.5e9\n"                                   // 15
    "kernel_call_seconds: 2.5e-6\n"                                      // 16
    "links:\n"                                                           // 17
    "  same_host: {latency_seconds: 1.5e-6, bytes_per_second: 4.0e9}\n"  // 18
    "  across_hosts: unmeasured\n";                                      // 19

// kProfile with the first `from` replaced by `to`.
std::string edited(const std::string& from, const std::string& to) {
    std::string text = kProfile;
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

// Loads `text` from a file; it must fail with a message starting "FILE:LINE:" and holding
// `field` and `what`, and exit code 2.
void expect_error(const std::string& text, int line, const std::string& field,
                  const std::string& what) {
    TempDir dir("machine-profile");
    const std::string path = dir.write("m.yaml", text);
    INFO(text);
    try {
        load_machine_profile(path);
        FAIL("loaded without an error");
    } catch (const Error& e) {
        CHECK_THAT(e.what(), Catch::StartsWith(path + ":" + std::to_string(line) + ":"));
        CHECK_THAT(e.what(), Catch::Contains(field));
        CHECK_THAT(e.what(), Catch::Contains(what));
        CHECK(e.exit_code() == 2);
    }
}

void check_same(const ia::MachineProfile& a, const ia::MachineProfile& b, double tolerance) {
    auto near = [&](double x, double y) { return std::abs(x - y) <= tolerance * std::abs(y); };
    CHECK(a.name == b.name);
    CHECK(a.blas_core == b.blas_core);
    CHECK(a.blas_threads == b.blas_threads);
    CHECK(a.ranks == b.ranks);
    for (auto [x, y] : {std::pair{&a.f64, &b.f64}, {&a.f32, &b.f32}}) {
        REQUIRE(x->gemm.size() == y->gemm.size());
        for (std::size_t i = 0; i < x->gemm.size(); ++i) {
            CHECK(x->gemm[i].size == y->gemm[i].size);
            CHECK(near(x->gemm[i].flops_per_second, y->gemm[i].flops_per_second));
        }
        CHECK(
            near(x->gemm_operand_excess_bytes_per_second, y->gemm_operand_excess_bytes_per_second));
        CHECK(near(x->gemm_result_excess_bytes_per_second, y->gemm_result_excess_bytes_per_second));
        CHECK(near(x->loop_flops_per_second, y->loop_flops_per_second));
        CHECK(near(x->lanes_flops_per_second, y->lanes_flops_per_second));
        REQUIRE(x->lanes_by_count.size() == y->lanes_by_count.size());
        for (std::size_t i = 0; i < x->lanes_by_count.size(); ++i) {
            CHECK(x->lanes_by_count[i].lanes == y->lanes_by_count[i].lanes);
            CHECK(
                near(x->lanes_by_count[i].flops_per_second, y->lanes_by_count[i].flops_per_second));
        }
    }
    CHECK(near(a.memory_bytes_per_second, b.memory_bytes_per_second));
    CHECK(near(a.permute_bytes_per_second, b.permute_bytes_per_second));
    CHECK(near(a.operator_seconds, b.operator_seconds));
    CHECK(near(a.exchange_seconds, b.exchange_seconds));
    CHECK(near(a.message_seconds, b.message_seconds));
    CHECK(near(a.einsum_call_seconds, b.einsum_call_seconds));
    CHECK(near(a.kernel_call_seconds, b.kernel_call_seconds));
    CHECK(near(a.first_touch_bytes_per_second, b.first_touch_bytes_per_second));
    for (auto [x, y] :
         {std::pair{&a.same_host, &b.same_host}, {&a.across_hosts, &b.across_hosts}}) {
        CHECK(x->measured == y->measured);
        CHECK(near(x->latency_seconds, y->latency_seconds));
        CHECK(near(x->bytes_per_second, y->bytes_per_second));
        CHECK(near(x->duplex_bytes_per_second, y->duplex_bytes_per_second));
    }
}

}  // namespace

TEST_CASE("machine profile: a hand-written file loads field by field", "[machine_profile]") {
    TempDir dir("machine-profile");
    const std::string path = dir.write("m.yaml", kProfile);
    const ia::MachineProfile p = load_machine_profile(path);
    CHECK(p.name == "testhost");
    CHECK(p.blas_core == "Haswell");
    CHECK(p.blas_threads == 2);
    CHECK(p.ranks == 3);
    REQUIRE(p.f64.gemm.size() == 2);
    CHECK(p.f64.gemm[1].size == 512);
    CHECK(p.f64.gemm[1].flops_per_second == 4.25e10);
    CHECK(p.f64.loop_flops_per_second == 6e8);
    REQUIRE(p.f32.gemm.size() == 1);
    CHECK(p.f32.gemm[0].size == 128);
    CHECK(p.f32.loop_flops_per_second == 7.5e8);
    // Absent: not measured, so lanes products are priced as BLAS calls.
    CHECK(p.f64.lanes_flops_per_second == 0);
    CHECK(p.f32.lanes_flops_per_second == 0);
    // Absent (a profile written before the field existed): the built-in default's.
    CHECK(p.f64.gemm_operand_excess_bytes_per_second ==
          ia::default_machine_profile().f64.gemm_operand_excess_bytes_per_second);
    CHECK(p.f64.gemm_result_excess_bytes_per_second ==
          ia::default_machine_profile().f64.gemm_result_excess_bytes_per_second);
    CHECK(p.memory_bytes_per_second == 5.5e9);
    CHECK(p.kernel_call_seconds == 2.5e-6);
    // Absent: not measured, so permutes are priced at the memory rate.
    CHECK(p.permute_bytes_per_second == 0);
    CHECK(p.permute_rate() == 5.5e9);
    CHECK(p.operator_seconds == 0);     // absent: not charged
    CHECK(p.exchange_seconds == 0);     // absent: an exchange pays operator_seconds
    CHECK(p.message_seconds == 0);      // absent: not charged
    CHECK(p.einsum_call_seconds == 0);  // absent: kernel_call_seconds
    // Absent (a profile written before the field existed): the built-in default's.
    CHECK(p.first_touch_bytes_per_second ==
          ia::default_machine_profile().first_touch_bytes_per_second);
    CHECK(p.same_host.measured);
    CHECK(p.same_host.latency_seconds == 1.5e-6);
    CHECK(p.same_host.bytes_per_second == 4e9);
    CHECK(p.same_host.duplex_bytes_per_second == 0);  // absent: both ways at bytes_per_second
    CHECK(p.same_host.duplex_rate() == 4e9);
    // Unmeasured: the default's rates, so either link reads as a usable rate.
    CHECK_FALSE(p.across_hosts.measured);
    CHECK(p.across_hosts.bytes_per_second ==
          ia::default_machine_profile().across_hosts.bytes_per_second);
    CHECK(p.source == path);
    CHECK(p.content_hash == file_content_hash(path));
}

TEST_CASE("machine profile: the thin-gemm rates, where given, are positive rates",
          "[machine_profile]") {
    TempDir dir("machine-profile");
    const std::string loop = "    loop_flops_per_second: 6.0e8\n";
    const ia::MachineProfile p = load_machine_profile(dir.write(
        "m.yaml", edited(loop, "    gemm_operand_excess_bytes_per_second: 4.5e9\n" +
                                   ("    gemm_result_excess_bytes_per_second: 2.5e10\n" + loop))));
    CHECK(p.f64.gemm_operand_excess_bytes_per_second == 4.5e9);
    CHECK(p.f64.gemm_result_excess_bytes_per_second == 2.5e10);
    // Either may be given alone; the other is the built-in default's.
    const ia::MachineProfile q = load_machine_profile(dir.write(
        "q.yaml", edited(loop, "    gemm_result_excess_bytes_per_second: 2.5e10\n" + loop)));
    CHECK(q.f64.gemm_operand_excess_bytes_per_second ==
          ia::default_machine_profile().f64.gemm_operand_excess_bytes_per_second);
    expect_error(edited(loop, "    gemm_operand_excess_bytes_per_second: 0\n" + loop), 11,
                 "dtypes.f64.gemm_operand_excess_bytes_per_second", "positive finite number");
    expect_error(edited(loop, "    gemm_result_excess_bytes_per_second: -1\n" + loop), 11,
                 "dtypes.f64.gemm_result_excess_bytes_per_second", "positive finite number");
}

TEST_CASE("machine profile: what the writer prints reads back the same", "[machine_profile]") {
    TempDir dir("machine-profile");
    SECTION("the built-in default, exactly") {
        const ia::MachineProfile& d = ia::default_machine_profile();
        const std::string text = machine_profile_yaml(d);
        CHECK_THAT(text, Catch::StartsWith("#"));
        CHECK_THAT(text, Catch::Contains("tra calibrate"));
        const std::string path = dir.write("d.yaml", text);
        const ia::MachineProfile back = load_machine_profile(path);
        check_same(back, d, 0);
        CHECK(machine_profile_yaml(back) == text);
    }
    SECTION("measured-looking values, to 6 significant digits, and a name that needs quoting") {
        ia::MachineProfile p;
        p.name = "node: \"7\" # \\ x";
        p.blas_core = "";
        p.blas_threads = 4;
        p.ranks = 2;
        p.f64.gemm = {{64, 1.23456789e10}, {2048, 4.87654321e10}};
        p.f64.loop_flops_per_second = 6.54321e8;
        p.f64.lanes_flops_per_second = 3.45678912e10;  // f32's stays unmeasured: not written
        p.f64.lanes_by_count = {{8, 4.5e10}, {64, 2.25e10}};
        p.f64.gemm_operand_excess_bytes_per_second = 9.87654321e9;
        p.f64.gemm_result_excess_bytes_per_second = 2.3456789e10;
        p.f64.gemm_shapes = ia::GemmShapeRates({{20, 100, 3000, 3.75e10}, {3000, 100, 20, 4.5e10}});
        p.f32.gemm = {{1, 3.0}, {3, 1e300}};
        p.f32.gemm_operand_excess_bytes_per_second = ia::kNoGemmExcess;
        p.f32.gemm_result_excess_bytes_per_second = 1.0 / 7;
        p.f32.loop_flops_per_second = 1.0 / 3;
        p.memory_bytes_per_second = 7.123456789e9;
        p.permute_bytes_per_second = 2.5e9;
        p.operator_seconds = 6.5e-6;
        p.exchange_seconds = 1.25e-5;
        p.message_seconds = 3e-6;
        p.einsum_call_seconds = 2.5e-7;
        p.kernel_call_seconds = 1.23456789e-7;
        p.first_touch_bytes_per_second = 8.7654321e8;
        p.same_host = {true, 1.7e-6, 5.4321e9, 2.75e9};
        p.across_hosts = {true, 2.5e-5, 1.1e9};  // duplex unmeasured: not written
        const std::string text = machine_profile_yaml(p);
        const std::string path = dir.write("p.yaml", text);
        const ia::MachineProfile back = load_machine_profile(path);
        check_same(back, p, 5e-6);  // half a unit in the 6th digit
        CHECK_THAT(text, Catch::Contains("    lanes_flops_per_second: 3.45679e+10\n"
                                         "    lanes_by_count:\n"
                                         "      - {lanes: 8, flops_per_second: 4.5e+10}\n"
                                         "      - {lanes: 64, flops_per_second: 2.25e+10}\n"
                                         "  f32:"));
        REQUIRE(back.f64.lanes_by_count.size() == 2);
        CHECK(back.f64.lanes_by_count[1].lanes == 64);
        CHECK(back.f64.lanes_by_count[1].flops_per_second == 2.25e10);
        CHECK(back.f32.lanes_by_count.empty());
        CHECK_THAT(
            text, Catch::Contains("    gemm_shapes:\n"
                                  "      - {m: 20, n: 100, k: 3000, flops_per_second: 3.75e+10}\n"
                                  "      - {m: 3000, n: 100, k: 20, flops_per_second: 4.5e+10}\n"));
        REQUIRE(back.f64.gemm_shapes.points().size() == 2);
        CHECK(back.f64.gemm_shapes.flops_per_second(3000, 100, 20) == 4.5e10);
        CHECK(back.f32.gemm_shapes.empty());
        CHECK_THAT(text, Catch::Contains("\npermute_bytes_per_second: 2.5e+09\n"));
        CHECK_THAT(text,
                   Catch::Contains("  same_host: {latency_seconds: 1.7e-06, bytes_per_second: "
                                   "5.4321e+09, duplex_bytes_per_second: 2.75e+09}\n"
                                   "  across_hosts: {latency_seconds: 2.5e-05, "
                                   "bytes_per_second: 1.1e+09}\n"));
        CHECK(back.permute_rate() == 2.5e9);
        CHECK_THAT(text, Catch::Contains("\noperator_seconds: 6.5e-06\nexchange_seconds: 1.25e-05\n"
                                         "message_seconds: 3.0e-06\n"));
        CHECK(back.exchange_fixed_seconds() == Approx(1.25e-5));
        CHECK_THAT(text, Catch::Contains("\nkernel_call_seconds: 1.23457e-07\n"
                                         "einsum_call_seconds: 2.5e-07\n"));
        // Printed, read and printed again: the same text, so the same content hash.
        CHECK(machine_profile_yaml(back) == text);
        CHECK(back.content_hash == content_hash(text));
    }
}

TEST_CASE("machine profile: the built-in default's hash is that of its text", "[machine_profile]") {
    const ia::MachineProfile b = workflow::builtin_machine_profile();
    CHECK(b.source == "built-in");
    CHECK_THAT(b.content_hash, Catch::StartsWith("fnv1a64:"));
    CHECK(b.content_hash == content_hash(machine_profile_yaml(ia::default_machine_profile())));
    check_same(b, ia::default_machine_profile(), 0);
}

TEST_CASE("machine profile: malformed files name file:line and the field", "[machine_profile]") {
    SECTION("missing field") {
        expect_error(edited("kernel_call_seconds: 2.5e-6\n", ""), 2, "kernel_call_seconds",
                     "missing field 'kernel_call_seconds'");
        // A missing field is reported at the map that lacks it.
        expect_error(edited("    loop_flops_per_second: 7.5e8\n", ""), 13, "dtypes.f32",
                     "missing field 'loop_flops_per_second'");
        expect_error(edited("{core: Haswell, threads: 2}", "{core: Haswell}"), 4, "blas",
                     "missing field 'threads'");
    }
    SECTION("rates positive and finite") {
        expect_error(edited("5.5e9", "-5.5e9"), 15, "memory_bytes_per_second",
                     "positive finite number");
        expect_error(edited("1.5e10", "0"), 9, "dtypes.f64.gemm[0].flops_per_second",
                     "positive finite number");
        expect_error(edited("2.5e-6", ".inf"), 16, "kernel_call_seconds", "number");
        expect_error(edited("2.5e-6", "nan"), 16, "kernel_call_seconds", "positive finite number");
        expect_error(edited("1.5e-6", "fast"), 18, "links.same_host.latency_seconds",
                     "expected a number, got 'fast'");
        expect_error(edited("4.0e9}", "4.0e9, duplex_bytes_per_second: -1}"), 18,
                     "links.same_host.duplex_bytes_per_second", "positive finite number");
        expect_error(edited("threads: 2", "threads: 0"), 4, "blas.threads", "from 1");
        expect_error(edited("ranks: 3", "ranks: 1.5"), 5, "ranks", "expected an integer");
        expect_error(edited("    loop_flops_per_second: 6.0e8\n",
                            "    loop_flops_per_second: 6.0e8\n    lanes_flops_per_second: 0\n"),
                     12, "dtypes.f64.lanes_flops_per_second", "positive finite number");
        expect_error(edited("    loop_flops_per_second: 6.0e8\n",
                            "    loop_flops_per_second: 6.0e8\n    gemm_shapes:\n"
                            "      - {m: 30, n: 2, k: 4, flops_per_second: 4.0e10}\n"
                            "      - {m: 20, n: 2, k: 4, flops_per_second: 5.0e10}\n"),
                     14, "dtypes.f64.gemm_shapes[1]", "ascending by m, then n, then k");
        expect_error(edited("    loop_flops_per_second: 6.0e8\n",
                            "    loop_flops_per_second: 6.0e8\n    gemm_shapes:\n"
                            "      - {m: 0, n: 2, k: 4, flops_per_second: 4.0e10}\n"),
                     13, "dtypes.f64.gemm_shapes[0].m", "positive whole number");
        expect_error(edited("    loop_flops_per_second: 6.0e8\n",
                            "    loop_flops_per_second: 6.0e8\n    lanes_by_count:\n"
                            "      - {lanes: 16, flops_per_second: 4.0e10}\n"
                            "      - {lanes: 8, flops_per_second: 5.0e10}\n"),
                     14, "dtypes.f64.lanes_by_count[1].lanes",
                     "ascending and distinct: 8 follows 16");
        expect_error(edited("    loop_flops_per_second: 6.0e8\n",
                            "    loop_flops_per_second: 6.0e8\n    lanes_by_count:\n"
                            "      - {lanes: 8, flops_per_second: 0}\n"),
                     13, "dtypes.f64.lanes_by_count[0].flops_per_second", "positive finite number");
        expect_error(edited("kernel_call_seconds: 2.5e-6\n",
                            "kernel_call_seconds: 2.5e-6\npermute_bytes_per_second: -3\n"),
                     17, "permute_bytes_per_second", "positive finite number");
        expect_error(edited("kernel_call_seconds: 2.5e-6\n",
                            "kernel_call_seconds: 2.5e-6\noperator_seconds: 0\n"),
                     17, "operator_seconds", "positive finite number");
        expect_error(edited("kernel_call_seconds: 2.5e-6\n",
                            "kernel_call_seconds: 2.5e-6\nexchange_seconds: -1e-6\n"),
                     17, "exchange_seconds", "positive finite number");
        expect_error(edited("kernel_call_seconds: 2.5e-6\n",
                            "kernel_call_seconds: 2.5e-6\nmessage_seconds: inf\n"),
                     17, "message_seconds", "positive finite number");
        expect_error(edited("kernel_call_seconds: 2.5e-6\n",
                            "kernel_call_seconds: 2.5e-6\neinsum_call_seconds: 0\n"),
                     17, "einsum_call_seconds", "positive finite number");
    }
    SECTION("gemm sizes ascending and distinct, at least one") {
        expect_error(edited("size: 512", "size: 32"), 10, "dtypes.f64.gemm[1].size",
                     "ascending and distinct");
        expect_error(edited("size: 512", "size: 64"), 10, "dtypes.f64.gemm[1].size",
                     "ascending and distinct");
        expect_error(edited("[{size: 128, flops_per_second: 8.0e10}]", "[]"), 13, "dtypes.f32.gemm",
                     "at least one");
        expect_error(edited("size: 64", "size: 0"), 9, "dtypes.f64.gemm[0].size", "positive");
    }
    SECTION("unknown keys") {
        expect_error(edited("ranks: 3\n", "ranks: 3\nbogus: 1\n"), 6, "", "unknown field 'bogus'");
        expect_error(edited("size: 64,", "size: 64, flops: 1,"), 9, "dtypes.f64.gemm[0]",
                     "unknown field 'flops'");
        expect_error(edited("  f32:\n", "  f16:\n"), 12, "dtypes", "unknown field 'f16'");
        expect_error(edited("across_hosts: unmeasured", "across_hosts: fast"), 19,
                     "links.across_hosts", "'unmeasured' or {latency_seconds");
    }
    SECTION("wrong format") {
        expect_error(edited("tra-machine/1", "tra-machine/2"), 2, "format",
                     "unsupported format 'tra-machine/2' (expected tra-machine/1)");
        expect_error(edited("format: tra-machine/1\n", ""), 2, "format", "missing field 'format'");
        expect_error("- 1\n", 1, "", "a machine profile is a map");
        expect_error("format: [tra-machine/1\n", 2, "", "malformed YAML");
    }
}

TEST_CASE("machine profile: an unreadable file is bad input", "[machine_profile]") {
    TempDir dir("machine-profile");
    try {
        load_machine_profile(dir.path("none.yaml"));
        FAIL("loaded a missing file");
    } catch (const Error& e) {
        CHECK_THAT(e.what(), Catch::Contains("cannot read machine profile"));
        CHECK(e.exit_code() == 2);
    }
}
