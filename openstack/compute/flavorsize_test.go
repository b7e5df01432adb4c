package compute

// The server list (2.47+) embeds the instance's own flavor sizes
// (views/servers.py _get_flavor_dict): kept with the server, so a
// mode-plan compares them rather than a catalog flavor of that name; a
// down cell's partial record has none.
