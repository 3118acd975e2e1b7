/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#ifndef FABRIC_PORT_PARTS_H
#define FABRIC_PORT_PARTS_H

#include "ns3/attribute.h"
#include "ns3/ptr.h"
#include "ns3/type-id.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class NetDevice;

/**
 * \ingroup ai-fabric
 * \brief What a helper was told about the parts of the ports it creates (a port's parts are
 *        its pointer attributes: "Marker", "FlowControl", "PfcWatchdog", ...): the type to
 *        create for a part instead of the port's own, and attributes to set on it. The fabric
 *        helpers and the server helper keep one and apply it to every port they create.
 */
class FabricPortParts
{
  public:
    /**
     * \param helper the helper's name, for messages
     * \param portType the type of the ports it creates
     */
    FabricPortParts(std::string helper, TypeId portType);

    /**
     * \brief The ports are of two role types (NIC and switch ports): a part is known if either
     *        has it, and each port takes the parts its type has.
     * \param nicPort the NIC ports' type
     * \param switchPort the switch ports' type
     */
    void SetPortTypes(TypeId nicPort, TypeId switchPort);

    /**
     * \brief Give every port a part of this type instead of its own. Aborts if the port type
     *        has no such part (neither role type has, SetPortTypes()) or there is no such type.
     * \param part the port's pointer attribute
     * \param type the TypeId name of the part to create for each port
     */
    void SetPart(const std::string& part, const std::string& type);

    /**
     * \brief Set an attribute of a part of every port. Aborts if no port type has such a
     *        part; ns-3 aborts when a port is configured if the part has no such attribute.
     * \param part the port's pointer attribute
     * \param name an attribute of the part
     * \param value its value
     */
    void SetAttribute(const std::string& part,
                      const std::string& name,
                      const AttributeValue& value);

    /**
     * \brief Apply what was set to a new port: a part set with SetPart() is created for it; the
     *        attributes go to its part, if it has one (a port has the parts of its role: a
     *        NIC port no PFC watchdog, a switch port no host interface).
     * \param port the port
     */
    void Configure(Ptr<NetDevice> port) const;

  private:
    /// One part's settings.
    struct Part
    {
        std::string part;                                                    //!< attribute
        std::string type;                                                    //!< "": the port's own
        std::vector<std::pair<std::string, Ptr<AttributeValue>>> attributes; //!< its settings
    };

    /**
     * \param part a port's pointer attribute
     * \return its settings, added if new; aborts if no port type has such a part
     */
    Part& Get(const std::string& part);

    std::string m_helper;      //!< for messages
    TypeId m_portType;         //!< the ports' type
    TypeId m_otherPortType;    //!< the other role's type (SetPortTypes())
    std::vector<Part> m_parts; //!< in the order first named
};

} // namespace ns3

#endif /* FABRIC_PORT_PARTS_H */
