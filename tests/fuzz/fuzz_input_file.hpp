#pragma once
// The file parsers read paths, not bytes, so each fuzz target writes its input to a file in a
// private temporary folder (under TMPDIR, removed at exit) and hands that path over.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace tra::fuzz {

class InputFolder {
  public:
    InputFolder() {
        const char* tmp = std::getenv("TMPDIR");
        path_ =
            std::filesystem::path(tmp ? tmp : "/tmp") / ("tra-fuzz-" + std::to_string(::getpid()));
        std::filesystem::create_directories(path_);
    }
    ~InputFolder() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    InputFolder(const InputFolder&) = delete;
    InputFolder& operator=(const InputFolder&) = delete;

    const std::filesystem::path& path() const { return path_; }

    // Writes `size` bytes to NAME inside the folder and returns its path.
    std::string write(const std::string& name, const std::uint8_t* data, std::size_t size) const {
        const std::filesystem::path file = path_ / name;
        std::ofstream(file, std::ios::binary | std::ios::trunc)
            .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
        return file.string();
    }

  private:
    std::filesystem::path path_;
};

}  // namespace tra::fuzz
