/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_OUTPUT_FILE_H
#define FABRIC_OUTPUT_FILE_H

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief An output file (--json, --trace) that is never half-written and never follows a link.
 *
 * Open() checks the target before the program simulates anything (not a directory, nor a
 * device or other special file, and its directory exists and is writable) and creates a
 * temporary file beside it with mkstemp: a unique name, created with O_EXCL, so that a
 * symbolic link planted at that name is never followed and two runs writing the same target
 * do not share a temporary. What the program writes to Stream() is kept in memory; Commit()
 * writes it to the temporary, gives it the usual permissions (0666 less the umask) and
 * renames it over the target in one step. Until then the target is untouched.
 *
 * The temporary is removed by Discard(), by the destructor, and also when the program ends
 * through std::exit (as FabricCli::Fail does) or on SIGINT, SIGTERM or SIGHUP: an uncommitted
 * file is never left behind.
 */
class FabricOutputFile
{
  public:
    FabricOutputFile() = default;
    /// Remove the temporary if it was not committed.
    ~FabricOutputFile();

    FabricOutputFile(const FabricOutputFile&) = delete;
    FabricOutputFile& operator=(const FabricOutputFile&) = delete;

    /**
     * \brief Check a target and create its temporary.
     * \param path the file to write in the end
     * \param error set to one line (without the option name) if it cannot be written
     * \return false if the path is empty, a directory or a special file, or no file can be
     *         created in its directory
     */
    bool Open(const std::string& path, std::string& error);

    /**
     * \brief Open(), or end the program with one line and exit status 2.
     * \param program the program's name
     * \param option the option that named the file (without "--"), for the message
     * \param path the file
     */
    void OpenOrFail(const std::string& program, const std::string& option, const std::string& path);

    /// \return true between Open() and Commit() or Discard()
    bool IsOpen() const;

    /// \return the target's path
    const std::string& GetPath() const;

    /// \return the stream to write the file's contents to (kept until Commit())
    std::ostream& Stream();

    /**
     * \brief Write the contents to the temporary and rename it over the target.
     * \param error set to one line if it failed (the temporary is then removed)
     * \return false if the file could not be written
     */
    bool Commit(std::string& error);

    /**
     * \brief Write a JSON document (two-space indent, a final newline) and Commit(); on
     *        failure say why on standard error as "<program>: <why>".
     * \param program the program's name
     * \param j the document
     * \return false if the file could not be written
     */
    bool CommitJson(const std::string& program, const nlohmann::ordered_json& j);

    /// Remove the temporary; the target is left as it was.
    void Discard();

    /**
     * \brief Can files named "<prefix>..." be created (as pcap files are)? Checked by creating
     *        and removing a uniquely named file with mkstemp: never through a link.
     * \param prefix a file name prefix
     * \return false if its directory does not exist or cannot be written
     */
    static bool IsWritablePrefix(const std::string& prefix);

    /**
     * \brief In a child process after fork(): the temporaries not yet committed are the
     *        parent's, so this process no longer removes them when it ends (std::exit, a
     *        signal). The parent still commits or removes them.
     */
    static void DisownTemporaries();

  private:
    std::string m_path;        //!< the target
    std::string m_tmp;         //!< the temporary beside it, empty when none
    int m_fd{-1};              //!< the temporary's descriptor
    std::ostringstream m_data; //!< the contents, written at Commit()
};

} // namespace ns3

#endif /* FABRIC_OUTPUT_FILE_H */
