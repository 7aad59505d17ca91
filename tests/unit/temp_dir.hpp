#pragma once
// A fresh folder per test case, removed afterwards, so tests never see each other's files.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace tra::testing {

class TempDir {
  public:
    explicit TempDir(const std::string& area = "test") {
        static int counter = 0;
        path_ =
            std::filesystem::temp_directory_path() /
            ("tra-" + area + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    // The folder itself, or `name` inside it.
    std::string path(const std::string& name = "") const {
        return name.empty() ? path_.string() : (path_ / name).string();
    }
    std::string file(const std::string& name) const { return path(name); }
    std::string operator/(const std::string& name) const { return path(name); }
    // Writes `text` to `name` (creating folders) and returns its path.
    std::string write(const std::string& name, const std::string& text) const {
        std::filesystem::create_directories((path_ / name).parent_path());
        std::ofstream(path_ / name) << text;
        return path(name);
    }

  private:
    std::filesystem::path path_;
};

}  // namespace tra::testing
