/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

// Imported fabrics (FabricGraph, ai-fabric-custom): GraphML, DOT and the HPCC / SimAI text
// formats read; a leaf-spine imported gives the busbw FatTreeHelper's gives; the routing
// engines of both fabrics on an imported graph; HPCC's flow file run with every flow's FCT in
// HPCC's format; graphs that cannot be built or routed refused in one line.

#include "ai-fabric-test-command.h"
#include "ns3/fabric-graph.h"
#include "ns3/flow-file-scenario.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// A leaf-spine as FatTreeHelper builds --server=none --servers=8 --radix=4: 8 GPUs, 4
/// leaves of 2, 2 spines; nodes and links in its order.
struct LeafSpine
{
    std::vector<std::pair<std::string, std::string>> nodes; //!< name, kind
    std::vector<std::pair<std::string, std::string>> links; //!< ends

    LeafSpine()
    {
        for (int g = 0; g < 8; ++g)
        {
            nodes.emplace_back("gpu" + std::to_string(g), "gpu");
        }
        for (int l = 0; l < 4; ++l)
        {
            nodes.emplace_back("leaf" + std::to_string(l), "switch");
        }
        for (int s = 0; s < 2; ++s)
        {
            nodes.emplace_back("spine" + std::to_string(s), "switch");
        }
        for (int g = 0; g < 8; ++g)
        {
            links.emplace_back("gpu" + std::to_string(g), "leaf" + std::to_string(g / 2));
        }
        for (int l = 0; l < 4; ++l)
        {
            for (int s = 0; s < 2; ++s)
            {
                links.emplace_back("leaf" + std::to_string(l), "spine" + std::to_string(s));
            }
        }
    }

    /// \return it as GraphML (rate as a string with its unit)
    std::string GraphMl() const
    {
        std::ostringstream x;
        x << "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
          << "<key id=\"k\" for=\"node\" attr.name=\"kind\" attr.type=\"string\"/>\n"
          << "<key id=\"n\" for=\"node\" attr.name=\"name\" attr.type=\"string\"/>\n"
          << "<key id=\"r\" for=\"edge\" attr.name=\"rate\" attr.type=\"double\"/>\n"
          << "<key id=\"x\" for=\"node\" attr.name=\"color\" attr.type=\"string\"/>\n"
          << "<graph id=\"G\" edgedefault=\"undirected\">\n";
        for (const auto& [name, kind] : nodes)
        {
            x << "<node id=\"" << name << "\"><data key=\"k\">" << kind << "</data><data key=\"n\">"
              << name << "</data><data key=\"x\">red</data></node>\n";
        }
        for (const auto& [a, b] : links)
        {
            x << "<edge source=\"" << a << "\" target=\"" << b
              << "\"><data key=\"r\">400</data></edge>\n";
        }
        x << "</graph>\n</graphml>\n";
        return x.str();
    }

    /// \return it as DOT
    std::string Dot() const
    {
        std::ostringstream d;
        d << "graph leafspine {\n";
        for (const auto& [name, kind] : nodes)
        {
            d << "  " << name << " [kind=" << kind << "];\n";
        }
        for (const auto& [a, b] : links)
        {
            d << "  " << a << " -- " << b << " [rate=\"400Gbps\"];\n";
        }
        d << "}\n";
        return d.str();
    }
};

/**
 * \param path a file
 * \param text its contents
 */
void
Write(const std::string& path, const std::string& text)
{
    std::ofstream(path) << text;
}

/**
 * \param json a --json output
 * \return its results' busbw, in order
 */
std::vector<double>
Busbw(const std::string& json)
{
    std::vector<double> b;
    const nlohmann::json j = nlohmann::json::parse(ReadFile(json));
    for (const auto& row : j["results"])
    {
        b.push_back(row["busbw_GBps"].get<double>());
    }
    return b;
}

} // namespace

TEST(GraphImportTest, ReadersAgree)
{
    const std::string dir = TempDir();
    const LeafSpine ls;
    Write(dir + "/ls.graphml", ls.GraphMl());
    Write(dir + "/ls.dot", ls.Dot());
    std::ostringstream hpcc;
    hpcc << "14 6 16\n8 9 10 11 12 13\n";
    for (int g = 0; g < 8; ++g)
    {
        hpcc << g << " " << 8 + g / 2 << " 400Gbps 0.001ms 0\n";
    }
    for (int l = 0; l < 4; ++l)
    {
        for (int s = 0; s < 2; ++s)
        {
            hpcc << 8 + l << " " << 12 + s << " 400Gbps 0.001ms 0\n";
        }
    }
    Write(dir + "/ls.txt", hpcc.str());
    Write(dir + "/simai.txt", "14 8 0 6 16 H100\n" + hpcc.str().substr(hpcc.str().find('\n') + 1));
    for (const auto& [file, format] :
         std::vector<std::pair<std::string, std::string>>{{"ls.graphml", "graphml"},
                                                          {"ls.dot", "dot"},
                                                          {"ls.txt", "hpcc"},
                                                          {"simai.txt", "simai"}})
    {
        FabricGraph g;
        ASSERT_EQ(FabricGraph::Read(dir + "/" + file, "auto", g), "") << file;
        EXPECT_EQ(g.format, format);
        ASSERT_EQ(g.nodes.size(), 14u) << file;
        ASSERT_EQ(g.links.size(), 16u) << file;
        EXPECT_EQ(g.Check(), "") << file;
        EXPECT_EQ(g.GetGpus().size(), 8u);
        EXPECT_EQ(g.GetSwitchHops(), 3u) << "gpu0 - leaf - spine - leaf - gpu";
        EXPECT_TRUE(g.links[0].rateSet);
        EXPECT_EQ(g.links[0].rate.GetBitRate(), 400000000000ULL) << file;
        EXPECT_EQ(g.links[0].delaySet, format == "hpcc" || format == "simai") << file;
        if (g.links[0].delaySet)
        {
            EXPECT_EQ(g.links[0].delay, MicroSeconds(1));
        }
        EXPECT_EQ(g.nodes[8].name, format == "hpcc" || format == "simai" ? "switch0" : "leaf0");
    }
    // A delay of zero is a delay (ns-3's Time::IsNegative() is true of zero).
    Write(dir + "/zero.txt", "3 1 2\n2\n0 2 100Gbps 0ms 0\n1 2 100Gbps 0.001ms 0\n");
    FabricGraph zero;
    ASSERT_EQ(FabricGraph::Read(dir + "/zero.txt", "auto", zero), "");
    ASSERT_TRUE(zero.links[0].delaySet);
    EXPECT_EQ(zero.links[0].delay, Time(0));
}

// The same leaf-spine, imported (GraphML, DOT) or built by FatTreeHelper: the same busbw to the
// last digit (same nodes, ports and ECMP hash), on both fabrics, with the tuner's choices.
TEST(GraphImportTest, ImportedLeafSpineIsTheFatTree)
{
    const std::string dir = TempDir();
    const LeafSpine ls;
    Write(dir + "/ls.graphml", ls.GraphMl());
    Write(dir + "/ls.dot", ls.Dot());
    const std::string sweep
        = " --minBytes=1M --maxBytes=16M --stepFactor=4 --iters=1 --warmup=0"
          " --quiet";
    for (const std::string fabric : {"roce", "ib"})
    {
        const CommandResult tree = RunCommand(ProgramPath("ai-fabric-fattree")
                                              + " --server=none --servers=8 --radix=4 --fabric="
                                              + fabric + sweep + " --json=" + dir + "/tree.json");
        ASSERT_EQ(tree.status, 0) << tree.err;
        const std::vector<double> expected = Busbw(dir + "/tree.json");
        ASSERT_EQ(expected.size(), 3u);
        for (const char* file : {"ls.graphml", "ls.dot"})
        {
            const std::string json = dir + "/" + file + ".json";
            const CommandResult r
                = RunCommand(ProgramPath("ai-fabric-custom") + " --graph=" + dir + "/" + file
                             + " --fabric=" + fabric + sweep + " --json=" + json);
            ASSERT_EQ(r.status, 0) << r.err;
            EXPECT_EQ(Busbw(json), expected) << fabric << " " << file;
            EXPECT_NE(r.out.find("8 GPUs, 6 switches, 16 links"), std::string::npos) << r.out;
        }
    }
    // InfiniBand's routing engines and the flow level on the imported graph.
    for (const std::string flags :
         {"--fabric=ib --routing=updn", "--fabric=ib --routing=ftree", "--mode=flow"})
    {
        const CommandResult r = RunCommand(ProgramPath("ai-fabric-custom") + " --graph=" + dir
                                           + "/ls.graphml " + flags + sweep);
        EXPECT_EQ(r.status, 0) << flags << ": " << r.err;
    }
}

// Servers: two DGX H100 (kind server, preset dgx-h100), each GPU's NIC a link naming it (nic:
// its rail), on 8 rail leaves and 16 spines: ai-fabric-fattree's default fabric, the same
// busbw to the last digit with NVLink inside the servers, for the tuner's NVLSTree and the ring.
TEST(GraphImportTest, ServersWithRails)
{
    const std::string dir = TempDir();
    std::ostringstream x;
    x << "<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
      << "<key id=\"k\" for=\"node\" attr.name=\"kind\" attr.type=\"string\"/>\n"
      << "<key id=\"p\" for=\"node\" attr.name=\"preset\" attr.type=\"string\"/>\n"
      << "<key id=\"n\" for=\"node\" attr.name=\"name\" attr.type=\"string\"/>\n"
      << "<key id=\"c\" for=\"edge\" attr.name=\"nic\" attr.type=\"int\"/>\n"
      << "<graph id=\"G\" edgedefault=\"undirected\">\n";
    for (int s = 0; s < 2; ++s)
    {
        x << "<node id=\"s" << s << "\"><data key=\"k\">server</data><data key=\"p\">dgx-h100"
          << "</data><data key=\"n\">server" << s << "</data></node>\n";
    }
    for (int l = 0; l < 8; ++l)
    {
        x << "<node id=\"leaf" << l << "\"><data key=\"k\">switch</data></node>\n";
    }
    for (int j = 0; j < 16; ++j)
    {
        x << "<node id=\"spine" << j << "\"><data key=\"k\">switch</data></node>\n";
    }
    for (int s = 0; s < 2; ++s)
    {
        for (int i = 0; i < 8; ++i)
        {
            x << "<edge source=\"s" << s << "\" target=\"leaf" << i << "\"><data key=\"c\">" << i
              << "</data></edge>\n";
        }
    }
    for (int l = 0; l < 8; ++l)
    {
        for (int j = 0; j < 16; ++j)
        {
            x << "<edge source=\"leaf" << l << "\" target=\"spine" << j << "\"/>\n";
        }
    }
    x << "</graph>\n</graphml>\n";
    Write(dir + "/dgx.graphml", x.str());
    FabricGraph g;
    ASSERT_EQ(FabricGraph::Read(dir + "/dgx.graphml", "auto", g), "");
    EXPECT_EQ(g.Check(), "");
    EXPECT_EQ(g.GetNRanks(), 16u);
    EXPECT_EQ(g.GetServerPreset(), "dgx-h100");
    const std::string sweep
        = " --minBytes=1M --maxBytes=8M --stepFactor=8 --iters=1 --warmup=0"
          " --quiet";
    for (const std::string algo : {"auto", "ring"})
    {
        const CommandResult tree = RunCommand(ProgramPath("ai-fabric-fattree") + " --algo=" + algo
                                              + sweep + " --json=" + dir + "/tree.json");
        ASSERT_EQ(tree.status, 0) << tree.err;
        const CommandResult r = RunCommand(ProgramPath("ai-fabric-custom") + " --graph=" + dir
                                           + "/dgx.graphml --algo=" + algo + sweep
                                           + " --json=" + dir + "/graph.json");
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(Busbw(dir + "/graph.json"), Busbw(dir + "/tree.json")) << algo;
        EXPECT_NE(r.out.find("16 GPUs (2 servers x 8)"), std::string::npos) << r.out;
    }
    // What a server's links must say.
    const std::string base = x.str();
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"<data key=\"c\">7</data>", "<data key=\"c\">6</data>"},
        {"<data key=\"c\">7</data>", "<data key=\"c\">9</data>"},
        {"<data key=\"p\">dgx-h100</data><data key=\"n\">server1",
         "<data key=\"p\">dgx-a100</data><data key=\"n\">server1"},
        {"<data key=\"p\">dgx-h100</data><data key=\"n\">server1",
         "<data key=\"p\">dgx-z9</data><data key=\"n\">server1"},
    };
    const std::vector<std::string> messages = {"two links from the NIC of GPU 6",
                                               "a link without a nic from 0 to 7",
                                               "differ: the hosts are all GPUs, or all servers",
                                               "preset \"dgx-z9\""};
    for (std::size_t i = 0; i < bad.size(); ++i)
    {
        std::string text = base;
        text.replace(text.find(bad[i].first), bad[i].first.size(), bad[i].second);
        Write(dir + "/bad.graphml", text);
        const CommandResult r
            = RunCommand(ProgramPath("ai-fabric-custom") + " --graph=" + dir + "/bad.graphml");
        EXPECT_EQ(r.status, 2) << bad[i].second;
        EXPECT_NE(r.err.find(messages[i]), std::string::npos) << r.err;
    }
}

// HPCC's flow file on HPCC's topology text: every flow's line in HPCC's fct.txt format, in the
// file's order, from its start; an uncontended flow no faster than HPCC's standalone FCT
// (its path's propagation both ways and its bytes at its slowest link), with a rate and a
// delay per link.
TEST(GraphImportTest, HpccFlowsReportTheirFct)
{
    const std::string dir = TempDir();
    // Two hosts per switch, 100 Gb/s host links, a 400 Gb/s link between the switches.
    Write(dir + "/topo.txt",
          "6 2 5\n4 5\n0 4 100Gbps 0.001ms 0\n1 4 100Gbps 0.001ms 0\n2 5 100Gbps 0.001ms 0\n"
          "3 5 100Gbps 0.001ms 0\n4 5 400Gbps 0.002ms 0\n");
    Write(dir + "/flow.txt",
          "3\n0 2 3 100 1000000 0.000002\n1 2 3 100 1000000 0.000002\n3 1 3 200 65536 0\n");
    const CommandResult r
        = RunCommand(ProgramPath("ai-fabric-custom") + " --graph=" + dir + "/topo.txt --flows="
                     + dir + "/flow.txt --fct=" + dir + "/fct.txt --json=" + dir + "/run.json");
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string fct = ReadFile(dir + "/fct.txt");
    std::istringstream lines(fct);
    std::vector<std::vector<std::string>> rows;
    std::string line;
    while (std::getline(lines, line))
    {
        std::istringstream words(line);
        std::vector<std::string> w;
        std::string x;
        while (words >> x)
        {
            w.push_back(x);
        }
        ASSERT_EQ(w.size(), 8u) << line;
        rows.push_back(w);
    }
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_NE(r.out.find(fct), std::string::npos) << "the same lines on stdout";
    EXPECT_EQ(rows[0][0], "0b000001"); // node 0
    EXPECT_EQ(rows[0][1], "0b000201"); // node 2
    EXPECT_EQ(rows[1][0], "0b000101");
    EXPECT_EQ(rows[2][0], "0b000301");
    EXPECT_EQ(rows[2][3], "200");
    EXPECT_EQ(rows[0][2], "10000");
    EXPECT_EQ(rows[0][4], "1000000");
    EXPECT_EQ(rows[0][5], "2000"); // start, ns
    EXPECT_EQ(rows[2][5], "0");
    for (const auto& row : rows)
    {
        const double fctNs = std::stod(row[6]);
        const double standalone = std::stod(row[7]);
        EXPECT_GE(fctNs, standalone) << "no flow beats the ideal";
    }
    // The ideal of the third flow, by hand: 2 x (1 + 2 + 1) us of propagation, one 4096-byte
    // packet's serialization at each of 100, 400 and 100 Gb/s, and its wire bytes at 100 Gb/s.
    const double eff = 4096.0 / (4096 + 82); // RoCEv2 headers per full packet (Wire arithmetic)
    const double ideal = 8000 + 4096 * 8 * (1 / 100.0 + 1 / 400.0 + 1 / 100.0)
                         + std::ceil(65536 / eff) * 8 / 100.0;
    EXPECT_NEAR(std::stod(rows[2][7]), ideal, 2.0);
    // The two flows into host 2 share its 100 Gb/s link: the slower one takes at least the
    // time of both flows' bytes at that rate.
    const double both = 2 * 1000000 * 8 / 100.0 / eff;
    EXPECT_GE(std::max(std::stod(rows[0][6]), std::stod(rows[1][6])), both);
    const nlohmann::json j = nlohmann::json::parse(ReadFile(dir + "/run.json"));
    EXPECT_EQ(j["flows"].size(), 3u);
    EXPECT_EQ(j["fabric"]["drops"], 0);
}

// What cannot be built or routed, one line and exit status 2.
TEST(GraphImportTest, BadGraphsAreOneLine)
{
    const std::string dir = TempDir();
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"graph g { a [kind=gpu]; b [kind=gpu]; s [kind=switch]; t [kind=switch]; a -- s; "
         "b -- t; }",
         "disconnected: no path from a to b"},
        {"graph g { a [kind=gpu]; b [kind=gpu]; c [kind=gpu]; s [kind=switch]; a -- s; b -- s; }",
         "GPU c has no link: it has no NIC"},
        {"graph g { a [kind=gpu]; b [kind=gpu]; a -- b; }", "a link between hosts a and b"},
        {"graph g { a [kind=gpu]; b [kind=gpu]; s [kind=switch]; a -- s; b -- s; a -- s; }",
         "GPU a has 2 links"},
        {"graph g { a [kind=router]; b [kind=gpu]; a -- b; }", "kind \"router\""},
        {"graph g { a [kind=gpu]; b [kind=gpu]; s [kind=switch]; a -- s [rate=fast]; b -- s; }",
         "rate \"fast\""},
        {"graph g { a [kind=gpu]; b [kind=gpu]; s [kind=switch]; a -- s [delay=soon]; b -- s; }",
         "delay \"soon\""},
        {"digraph g { a [kind=gpu]; b [kind=gpu]; s [kind=switch]; a -> s; b -> s; }",
         "a directed graph"},
        {"graph g { a [kind=gpu]; s [kind=switch]; a -- s; }", "1 GPU: a collective needs"},
        {"graph g { s [kind=switch]; s -- s; a [kind=gpu]; b [kind=gpu]; a -- s; b -- s; }",
         "a link from s to itself"},
        {"graph g {", "not DOT"},
    };
    for (std::size_t i = 0; i < cases.size(); ++i)
    {
        const std::string file = dir + "/bad" + std::to_string(i) + ".dot";
        Write(file, cases[i].first + "\n");
        const CommandResult r = RunCommand(ProgramPath("ai-fabric-custom") + " --graph=" + file);
        EXPECT_EQ(r.status, 2) << cases[i].first;
        EXPECT_EQ(r.out, "") << cases[i].first;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find(cases[i].second), std::string::npos)
            << cases[i].first << ": " << r.err;
    }
    const std::vector<std::pair<std::string, std::string>> text = {
        {"10 8 8 2 10 H100\n8 9\n", "NVSwitches: NVLink domains are not imported"},
        {"3 1 2\n2\n0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms 0.01\n", "error rate 0.01"},
        {"3 1 2\n2\n0 2 100Gbps 0.001ms 0\n", "link 2 of 2: the file ends"},
        {"3 1 2\n7\n", "expected a node id below 3"},
        {"x y\n", "line 1: expected the counts"},
    };
    for (std::size_t i = 0; i < text.size(); ++i)
    {
        const std::string file = dir + "/bad" + std::to_string(i) + ".txt";
        Write(file, text[i].first);
        const CommandResult r = RunCommand(ProgramPath("ai-fabric-custom") + " --graph=" + file);
        EXPECT_EQ(r.status, 2) << text[i].first;
        EXPECT_NE(r.err.find(text[i].second), std::string::npos) << r.err;
    }
    // Flow files.
    Write(dir + "/topo.txt", "3 1 2\n2\n0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms 0\n");
    const CommandResult sweep = RunCommand(ProgramPath("ai-fabric-sweep") + " --topology=graph"
                                           + " --graph=" + dir + "/topo.txt --flows=x");
    EXPECT_EQ(sweep.status, 2);
    EXPECT_NE(sweep.err.find("run with ai-fabric-custom"), std::string::npos) << sweep.err;
    const std::vector<std::pair<std::string, std::string>> flows = {
        {"2\n0 1 3 100 1000 0\n", "1 flows, the first line says 2"},
        {"1\n0 2 3 100 1000 0\n", "must be two hosts"},
        {"1\n0 9 3 100 1000 0\n", "node ids below 3"},
        {"1\n0 1 3 100 0 0\n", "size \"0\""},
        {"1\n0 1 3 100 1000 soon\n", "start time \"soon\""},
    };
    for (std::size_t i = 0; i < flows.size(); ++i)
    {
        const std::string file = dir + "/flows" + std::to_string(i) + ".txt";
        Write(file, flows[i].first);
        const CommandResult r = RunCommand(ProgramPath("ai-fabric-custom") + " --graph=" + dir
                                           + "/topo.txt --flows=" + file);
        EXPECT_EQ(r.status, 2) << flows[i].first;
        EXPECT_NE(r.err.find(flows[i].second), std::string::npos) << r.err;
    }
}
