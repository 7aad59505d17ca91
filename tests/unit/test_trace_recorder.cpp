// The span recorder of `tra run --trace` (lib/runtime/trace_recorder.hpp): off it records and
// writes nothing; on it writes rank-R.json with an event per span under its operator, renamed
// into place (no temporary left); a folder that cannot be made is bad input; spans in a loop are
// tagged with their iteration; past its limit the recorder keeps counting, not spans; spans handed
// to the file's thread in batches all arrive, in order; a recorder destroyed unwritten (a failed
// run) leaves nothing. Tests/mpi/test_trace.sh checks the files of real runs parse as JSON and
// match the report.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "runtime/trace_recorder.hpp"
#include "temp_dir.hpp"

using tra::Error;
using tra::ErrorKind;
using tra::runtime::TraceRecorder;

namespace {

std::string text_of(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

TEST_CASE("trace recorder: off records and writes nothing", "[trace]") {
    TraceRecorder off;
    CHECK_FALSE(off.on());
    off.set_operator(0, "read");
    { auto span = off.span("read"); }
    off.operator_done(TraceRecorder::now());
    CHECK_NOTHROW(off.write());
}

TEST_CASE("trace recorder: spans under their operators, written atomically", "[trace]") {
    tra::testing::TempDir dir("trace");
    const std::string folder = dir.path("traces");  // made by the recorder
    TraceRecorder trace(folder, 3);
    REQUIRE(trace.on());
    trace.set_operator(2, "shuffle");
    const auto start = TraceRecorder::now();
    {
        auto pack = trace.span("pack");
        pack.end();
        pack.end();  // a second end records nothing
        auto wait = trace.span("wait");
    }
    trace.operator_done(start);
    trace.write();
    const std::string text = text_of(folder + "/rank-3.json");
    CHECK(text.rfind("{\"traceEvents\": [", 0) == 0);
    CHECK(count(text, "\"ph\": \"X\"") == 3);
    CHECK(count(text, "\"name\": \"#2 shuffle pack\"") == 1);
    CHECK(count(text, "\"name\": \"#2 shuffle wait\"") == 1);
    CHECK(count(text, "\"name\": \"#2 shuffle\", \"cat\": \"operator\"") == 1);
    CHECK(count(text, "\"pid\": 3") == 6);  // 3 metadata events + 3 spans
    std::size_t files = 0;
    for (const auto& e : std::filesystem::directory_iterator(folder)) {
        CHECK(e.path().filename() == "rank-3.json");
        ++files;
    }
    CHECK(files == 1);
}

TEST_CASE("trace recorder: a folder that cannot be made is bad input", "[trace]") {
    tra::testing::TempDir dir("trace");
    std::ofstream(dir.path("a_file")) << "x";
    try {
        TraceRecorder trace(dir.path("a_file"), 0);
        FAIL("a file was taken for the trace folder");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::BadInput);
        CHECK(std::string(e.what()).find("--trace") != std::string::npos);
    }
}

TEST_CASE("trace recorder: iterations tagged, spans past the limit counted, not kept", "[trace]") {
    tra::testing::TempDir dir("trace");
    TraceRecorder trace(dir.path("t"), 0, 3);
    trace.set_operator(4, "read");  // before the loop: no tag
    trace.operator_done(TraceRecorder::now());
    for (int k = 1; k <= 3; ++k) {
        trace.set_iteration(k);
        trace.set_operator(7, "local_join");
        { auto compute = trace.span("compute"); }
        trace.operator_done(TraceRecorder::now());
    }
    trace.write();
    const std::string text = text_of(dir.path("t") + "/rank-0.json");
    CHECK(count(text, "\"ph\": \"X\"") == 3);  // the limit
    CHECK(count(text, "\"name\": \"#4 read\", ") == 1);
    CHECK(count(text, "\"name\": \"#7 local_join compute @1\"") == 1);
    CHECK(count(text, "\"name\": \"#7 local_join @1\"") == 1);
    CHECK(count(text, "\"iteration\": 1}") == 2);
    CHECK(count(text, "@2") == 0);
    CHECK(count(text, "trace truncated: 4 later spans not kept (the first 3 are)") == 1);
    CHECK(count(text, "\"args\": {\"dropped\": 4}") == 1);
}

TEST_CASE("trace recorder: spans handed over in batches arrive whole and in order", "[trace]") {
    tra::testing::TempDir dir("trace");
    TraceRecorder trace(dir.path("t"), 1);
    const std::size_t operators = 3 * TraceRecorder::kBatchSpans / 2 + 7;  // batches and a rest
    for (std::size_t i = 0; i < operators; ++i) {
        trace.set_operator(static_cast<std::int64_t>(i), i % 2 ? "map" : "local_join");
        const auto start = TraceRecorder::now();
        { auto compute = trace.span("compute"); }
        trace.operator_done(start);
    }
    trace.write();
    const std::string text = text_of(dir.path("t") + "/rank-1.json");
    CHECK(count(text, "\"ph\": \"X\"") == 2 * operators);
    CHECK(count(text, "\"cat\": \"operator\"") == operators);
    // Each operator's two spans under its own name, the operators in the order they ran.
    std::size_t at = 0;
    for (std::size_t i = 0; i < operators; ++i) {
        const std::string name =
            "\"name\": \"#" + std::to_string(i) + (i % 2 ? " map" : " local_join");
        const auto phase = text.find(name + " compute\"", at);
        const auto whole = text.find(name + "\", \"cat\": \"operator\"", at);
        REQUIRE(phase != std::string::npos);
        REQUIRE(whole != std::string::npos);
        CHECK(phase < whole);
        at = whole;
    }
    CHECK(text.substr(text.size() - 2) == "}\n");
}

TEST_CASE("trace recorder: a run that fails before writing leaves no file", "[trace]") {
    tra::testing::TempDir dir("trace");
    {
        TraceRecorder trace(dir.path("t"), 0);
        for (std::size_t i = 0; i < 2 * TraceRecorder::kBatchSpans; ++i) {  // some handed over
            trace.set_operator(static_cast<std::int64_t>(i), "map");
            trace.operator_done(TraceRecorder::now());
        }
    }  // destroyed without write(), as a failed run's is
    CHECK(std::filesystem::is_empty(dir.path("t")));
}
