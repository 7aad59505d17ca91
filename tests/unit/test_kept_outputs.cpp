// What an output run keeps and removes around the file it replaces (docs/reliability.md,
// "Nothing lost"): --force keeps the old file's other datasets, an output may not be an input,
// and temporaries of dead runs on this host go while everything else stays.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <climits>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "storage/atomic_output.hpp"
#include "storage/kept_objects.hpp"
#include "storage/same_file.hpp"
#include "storage/tensor_file.hpp"
#include "temp_dir.hpp"

using namespace tra;
using storage::DatasetReader;
using storage::DatasetWriter;
using tra::testing::TempDir;
namespace fs = std::filesystem;

namespace {

// A dataset of `n` f64 values start, start + 1, ...
void write_vector(const std::string& file, const std::string& name, int n, double start) {
    DatasetWriter w(file, name, DType::F64, Shape{n}, Shape{n});
    Tile t(DType::F64, Shape{n});
    for (int i = 0; i < n; ++i) t.set(i, start + i);
    w.write_block(Shape{0}, t);
    w.close();
}

double first_value(const std::string& file, const std::string& name) {
    return DatasetReader(file, name).read_block(Shape{0}, Shape{1}).get(0);
}

// The pid of a process that has ended (a child, reaped), so no live process has it for now.
pid_t dead_pid() {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ::waitpid(child, nullptr, 0);
    return child;
}

std::string this_host() {
    char name[HOST_NAME_MAX + 1] = {};
    ::gethostname(name, sizeof name - 1);
    return name;
}

}  // namespace

TEST_CASE("with --force, every dataset of the old file that the workflow does not write") {
    TempDir dir("kept");
    const std::string out = dir / "C.h5";
    write_vector(out, "/C", 3, 10);
    write_vector(out, "/other", 2, 20);
    write_vector(out, "/grp/C", 2, 30);
    write_vector(out, "/grp/D", 2, 40);
    {
        storage::AtomicOutput file(out, true);
        file.keep_existing_objects({"/C", "grp/C"});
        write_vector(file.temp_path(), "/C", 3, 1);
        write_vector(file.temp_path(), "/grp/C", 2, 2);
        file.commit();
    }
    CHECK(storage::list_datasets(out) ==
          std::vector<std::string>{"/C", "/grp/C", "/grp/D", "/other"});
    CHECK(first_value(out, "/C") == 1);       // replaced
    CHECK(first_value(out, "/grp/C") == 2);   // replaced inside a kept group
    CHECK(first_value(out, "/grp/D") == 40);  // kept
    CHECK(first_value(out, "/other") == 20);  // kept
    CHECK(DatasetReader(out, "/other").info().shape == Shape{2});

    // A dataset where the workflow needs a group is in the way: refused, naming both.
    const std::string clash = dir / "clash.h5";
    write_vector(clash, "/grp", 2, 0);
    try {
        storage::copy_kept_objects(clash, dir / "new.h5", {"/grp/C"});
        FAIL("no error");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::BadInput);
        CHECK(e.message() == "output file '" + clash +
                                 "' holds '/grp', which is not a group, where the workflow "
                                 "writes a dataset below it; remove it or write the output "
                                 "elsewhere");
    }

    // An old file that is not HDF5 keeps nothing, and creates nothing.
    std::ofstream(dir / "text.h5") << "not hdf5";
    storage::copy_kept_objects(dir / "text.h5", dir / "new2.h5", {"/C"});
    CHECK_FALSE(fs::exists(dir / "new2.h5"));
}

TEST_CASE("same_file sees one file through symlinks, '..' and hard links") {
    TempDir dir("kept");
    std::ofstream(dir / "a.h5") << "x";
    fs::create_directories(dir / "sub");
    fs::create_symlink(dir / "a.h5", dir / "sub/link.h5");
    fs::create_hard_link(dir / "a.h5", dir / "hard.h5");
    CHECK(storage::same_file(dir / "a.h5", dir / "sub/../a.h5"));
    CHECK(storage::same_file(dir / "sub/link.h5", dir / "a.h5"));
    CHECK(storage::same_file(dir / "hard.h5", dir / "a.h5"));
    CHECK(storage::same_file(dir / "missing.h5", dir / "sub/../missing.h5"));
    CHECK_FALSE(storage::same_file(dir / "a.h5", dir / "b.h5"));
    std::ofstream(dir / "b.h5") << "x";
    CHECK_FALSE(storage::same_file(dir / "a.h5", dir / "b.h5"));
}

TEST_CASE("temporaries of dead runs of the same output on this host are removed, nothing else") {
    TempDir dir("kept");
    const std::string out = dir / "C.h5";
    const std::string host = this_host();
    const std::string dead = std::to_string(dead_pid());
    const std::string live = std::to_string(::getpid());
    const std::vector<std::string> kept = {
        "C.h5.tmp-" + host + "-" + live + "-7",       // a live process's (this one)
        "C.h5.tmp-other" + host + "-" + dead + "-0",  // another host's
        "C.h5.tmp-" + host + "x-" + dead + "-0",      // another host's, a longer name
        "C.h5.tmp-" + host + "-1-" + dead + "-0",     // host "<ours>-1"'s
        "C.h5.tmp-" + host + "-" + dead + "-0x",      // not the exact pattern
        "C.h5.tmp-" + host + "-" + dead,              // not the exact pattern
        "C.h5.tmp-" + dead + "-0",                    // the old pattern: no host, kept
        "D.h5.tmp-" + host + "-" + dead + "-0",       // another output's
        "C.h5"};                                      // the output itself
    const std::vector<std::string> removed = {"C.h5.tmp-" + host + "-" + dead + "-0",
                                              "C.h5.tmp-" + host + "-" + dead + "-12"};
    for (const auto& name : kept) std::ofstream(dir / name) << "x";
    for (const auto& name : removed) std::ofstream(dir / name) << "x";
    {
        storage::AtomicOutput file(out, true);
        CHECK(file.temp_path().rfind(out + ".tmp-" + host + "-" + live + "-", 0) == 0);
    }
    for (const auto& name : kept) CHECK(fs::exists(dir / name));
    for (const auto& name : removed) CHECK_FALSE(fs::exists(dir / name));
}
