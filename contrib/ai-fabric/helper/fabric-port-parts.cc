/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Copyright (c) 2026 ai-fabric authors
 */

#include "fabric-port-parts.h"

#include "ns3/abort.h"
#include "ns3/net-device.h"
#include "ns3/object-factory.h"
#include "ns3/pointer.h"

namespace ns3
{

FabricPortParts::FabricPortParts(std::string helper, TypeId portType)
    : m_helper(std::move(helper))
    , m_portType(portType)
    , m_otherPortType(portType)
{
}

void
FabricPortParts::SetPortTypes(TypeId nicPort, TypeId switchPort)
{
    m_portType = nicPort;
    m_otherPortType = switchPort;
}

FabricPortParts::Part&
FabricPortParts::Get(const std::string& part)
{
    for (Part& p : m_parts)
    {
        if (p.part == part)
        {
            return p;
        }
    }
    TypeId::AttributeInformation info;
    const bool known = (m_portType.LookupAttributeByName(part, &info)
                        && DynamicCast<const PointerChecker>(info.checker))
                       || (m_otherPortType.LookupAttributeByName(part, &info)
                           && DynamicCast<const PointerChecker>(info.checker));
    NS_ABORT_MSG_IF(!known,
                    m_helper << ": " << m_portType.GetName()
                             << (m_otherPortType != m_portType
                                     ? " and " + m_otherPortType.GetName() + " have"
                                     : std::string(" has"))
                             << " no part called " << part);
    m_parts.push_back(Part{part, "", {}});
    return m_parts.back();
}

void
FabricPortParts::SetPart(const std::string& part, const std::string& type)
{
    TypeId tid;
    NS_ABORT_MSG_IF(!TypeId::LookupByNameFailSafe(type, &tid),
                    m_helper << ": no type " << type << " for the ports' " << part);
    Get(part).type = type;
}

void
FabricPortParts::SetAttribute(const std::string& part,
                              const std::string& name,
                              const AttributeValue& value)
{
    Get(part).attributes.emplace_back(name, value.Copy());
}

void
FabricPortParts::Configure(Ptr<NetDevice> port) const
{
    for (const Part& p : m_parts)
    {
        TypeId::AttributeInformation info;
        if (!port->GetInstanceTypeId().LookupAttributeByName(p.part, &info))
        {
            continue; // this port type has no such part
        }
        if (!p.type.empty())
        {
            ObjectFactory factory(p.type);
            port->SetAttribute(p.part, PointerValue(factory.Create()));
        }
        PointerValue value;
        port->GetAttribute(p.part, value);
        Ptr<Object> object = value.Get<Object>();
        if (!object)
        {
            continue; // the port has the part's attribute but no part in it
        }
        for (const auto& [name, v] : p.attributes)
        {
            object->SetAttribute(name, *v);
        }
    }
}

} // namespace ns3
