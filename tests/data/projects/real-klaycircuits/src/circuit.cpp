#include "klay/circuit.h"
#include "cassert"

namespace klay {

Node* Circuit::add_node(Node* node) {
    if (layers.size() <= node->layer)
        layers.resize(node->layer + 1);
    auto& layer = layers[node->layer];
    auto [it, inserted] = layer.insert(node);
    if (inserted && node->ix == -1)
        node->ix = layer.size()-1;
    if (*it != node) // did not insert; found different but equal instance
        delete node; // fix mem leak
    return *it;
}


Node* Circuit::add_node_level(Node* node) {
    // First make sure each child is adjacent.
    for (auto& child : node->children) {
#ifndef NDEBUG
        // We assume children are already part of the circuit,
        // since each child should have been added to the circuit first,
        // and they should have used the returned child.
        // It is also the user's responsibility to delete duplicate nodes
        // in case an equivalent one was already present.
        Node* child_stored = get_node(child);
        assert(child_stored == child);
#endif
        // Add a chain of dummy nodes to bring child to the correct layer
        // invariant: each child is part of the circuit.
        while (child->layer < node->layer - 1)
            child = add_node(child->dummy_parent());
    }
    // Note: since we may have changed the children, (replaced by dummy parent)
    // the hash is no longer a hash of the direct children.
    // Instead, it became the hash of the next non-dummy child.
    // As long as we are fine with the latter definition,
    // and we are consistent with that, there is no need
    // to recompute the hash of `node`.

    // Add node -- this may free node
    return add_node(node);
}

Node* Circuit::add_node_level_compressed(Node* node) {
    // return add_node_level(node); // To disable compression.
    if (node->type != NodeType::And && node->type != NodeType::Or)
        return add_node_level(node);

    NodeType annihilateType;
    NodeType neutralType;
    Node* (*annihilate_function)();
    Node* (*neutral_function)();
    if (node->type == NodeType::Or) {
        annihilateType = NodeType::True;
        neutralType = NodeType::False;
        annihilate_function = &Node::createTrueNode;
        neutral_function = &Node::createFalseNode;
    } else if (node->type == NodeType::And) {
        annihilateType = NodeType::False;
        neutralType = NodeType::True;
        annihilate_function = &Node::createFalseNode;
        neutral_function = &Node::createTrueNode;
    } else {
        return add_node_level(node);
    }

    // Iterate over node->children
    // if child->type == neutralType
    // remove child from children.
    // if child->type == annihilateType
    // result should be true or false node (depends)
    std::vector<Node*> new_children;
    new_children.reserve(node->children.size());
    for (auto &child : node->children) {
        if (child->type == neutralType) {
            continue;
        } else if (child->type == annihilateType) {
            delete node;
            return add_node_level(annihilate_function());
        } else {
            new_children.push_back(child);
        }
    }

    if (new_children.empty()) { // all children are neutral
        delete node;
        return add_node_level(neutral_function());
    }
    if (new_children.size() == 1) {
        Node* child = new_children.front();
        delete node;
        return child;
    }
    if (new_children.size() != node->children.size()) {
        // recreate node because the hash is wrong
        // when we change children
        NodeType t = node->type;
        delete node;
        if (t == NodeType::And)
            node = Node::createAndNode();
        else
            node = Node::createOrNode();
        node->children.reserve(new_children.size());
        for(auto child: new_children)
            node->add_child(child);
    }

    return add_node_level(node);
}


/**
 * Auxiliary method for Circuit::add_sdd_from_file
 */
Node* parseSDDFile(const std::string& filename, Circuit& circuit, std::vector<int>& true_lits, std::vector<int>& false_lits) {
    std::ifstream file(filename);
    if (!file.is_open()) {
        throw std::runtime_error("Could not open file: " + filename);
    }

    std::vector<Node*> nodeIds = {};
    Node* node;

    std::string line;
    while (std::getline(file, line)) {
        // Ignore comment lines
        if (line[0] == 'c') continue;

        std::istringstream iss(line);
        std::string type;
        iss >> type;

        if (type == "sdd") {
            int nbNodes;
            iss >> nbNodes;
            nodeIds.resize(nbNodes);
            continue;
        }
        std::size_t nodeId;
        iss >> nodeId;

        if (type == "F") {
            node = Node::createFalseNode();
        } else if (type == "T") {
            node = Node::createTrueNode();
        } else if (type == "L") {
            int vtree, literal;
            iss >> vtree >> literal;
            if (std::find(true_lits.begin(), true_lits.end(), literal) != true_lits.end())
                node = Node::createTrueNode();
            else if (std::find(false_lits.begin(), false_lits.end(), literal) != false_lits.end())
                node = Node::createFalseNode();
            else
                node = Node::createLiteralNode(Lit::fromInt(literal));
        } else if (type == "D") {
            int vtree, numElements;
            iss >> vtree >> numElements;
            node = Node::createOrNode();
            node->children.reserve(numElements);
            for (std::size_t i = 0; i < numElements; ++i) {
                int primeId, subId;
                iss >> primeId >> subId;
                Node* and_node = Node::createAndNode();
                and_node->children.reserve(2);
                and_node->add_child(nodeIds[primeId]);
                and_node->add_child(nodeIds[subId]);
                and_node = circuit.add_node_level_compressed(and_node);
                node->add_child(and_node);
            }
        } else {
            throw std::runtime_error("Unknown node type: " + type);
        }
        node = circuit.add_node_level_compressed(node);
        nodeIds[nodeId] = node; // Invariant: these nodes are present in the circuit.
    }
    file.close();
    return node;
}

size_t Circuit::max_layer_width() const {
    size_t max_width = 0;
    for (const auto& layer: layers)
        if (layer.size() > max_width)
            max_width = layer.size();
    return max_width;
}

void Circuit::remove_unused_nodes() {
    // Should be run before adding a final root layer;
    // because it might change ix's.
    if (nb_layers() == 1)
        return;

    // we determine useless nodes.
    // first layer we skip because they
    // are not removed and their ix is
    // not consecutive [0..n] such that the
    // first `used` vector would be more
    // annoying to create the proper size of.

	std::vector<std::vector<bool>> used(nb_layers());
	for (std::size_t i = 1; i < nb_layers(); ++i)
    	used[i].resize(layers[i].size(), false);

    // set roots as used
    for (auto &root : roots) {
    	if (root->layer != 0) {
//      	assert(root->layer < used.size());
//        	assert(root->ix < used[root->layer].size());
        	used[root->layer][root->ix] = true;
        }
    }

    // iterate backwards over layers
    // tag children of useful nodes
    for (auto it = layers.rbegin(); it != layers.rend(); ++it) {
        for (auto &node : *it) {
        	if (node->layer == 0)
        		continue; // skip input layer, idx error otherwise

      		assert(node->layer < used.size());
        	assert(node->ix < used[node->layer].size());
            if (used[node->layer][node->ix]) {
                for (auto child: node->children) {
                    if (child->layer == 0)
                        continue; // skip input layer, idx error otherwise
//                	assert(child->layer < used.size());
//                  assert(child->ix < used[child->layer].size());
                    used[child->layer][child->ix] = true;
                }
            }
        }
    }

    // Now delete useless nodes (skip input)
    for (std::size_t i = 1; i < nb_layers(); ++i) {
        for (auto it = layers[i].begin(); it != layers[i].end();) {
            if (!used[i][(*it)->ix]) {
                Node* del_node = *it;
                it = layers[i].erase(it);
                delete del_node;
            } else {
                ++it;
            }
        }
    }

    // Clean-up: last layers can be empty, pop those.
    // Intermediate layers can not be empty because we use dummy nodes.
    for (std::size_t i = nb_layers()-1; i > 0; --i) {
        if (layers[i].empty()) {
            layers.pop_back();
        } else {
            break;
        }
    }

    // Clean-up: Update ix
    for (std::size_t i = 1; i < nb_layers(); ++i) {
        // I do not think an intermediate layer can become empty.
        // However, we can have layers of only unit nodes.
        // This is an opportunity to optimise in the future.
        assert(!layers[i].empty());
        int index = 0;
        for (auto &node : layers[i])
            node->ix = index++;
    }


#ifndef NDEBUG
    // print_circuit();

    if (layers.size() > 2) {
        // check for each layer, for each node, whether the idx
        // of the children is smaller than previous layer's size.
        // We skip layer 1, because input layer does not have all nodes.
        for (std::size_t i = 2; i < nb_layers(); ++i) {
            for (auto &node: layers[i]) {
                for (auto &child: node->children) {
                    assert(child->ix < layers[i - 1].size());
                }
            }
        }
    }
#endif
}

Node* parseD4File(const std::string& filename, Circuit& circuit, std::vector<int>& true_lits, std::vector<int>& false_lits) {
    std::ifstream file(filename);
    if (!file.is_open()) {
        throw std::runtime_error("Could not open file: " + filename);
    }

    std::vector<Node*> nodes = {nullptr};
    Node* node;

    std::string line;
    while (std::getline(file, line)) {
        switch (line[0]) {
            // Parse new nodes
            case 'o': node = Node::createOrNode(); break;
            case 'a': node = Node::createAndNode(); break;
            case 'f': node = Node::createFalseNode(); break;
            case 't': node = Node::createTrueNode(); break;
            default: node = nullptr;
        }
        if (node != nullptr) {
            nodes.push_back(node);
        } else {
            // Parse edges
            std::size_t parent, child;
            int lit;
            std::istringstream iss(line);
            iss >> parent >> child >> lit;

            // When a child is used, we can assume it's been finalized
            nodes[child] = circuit.add_node_level_compressed(nodes[child]);
            if (lit == 0) {
                // pure edge with no associated literals
                nodes[parent]->add_child(nodes[child]);
                continue;
            }

            // edge with literals
            Node* edge;
            if (nodes[parent]->type == NodeType::And) {
                edge = nodes[parent]; // For and nodes, we can fold in the edge
            } else {
                edge = Node::createAndNode();
            }
            edge->add_child(nodes[child]);
            while (lit != 0) {
                if (std::find(true_lits.begin(), true_lits.end(), lit) != true_lits.end())
                    node = Node::createTrueNode();
                else if (std::find(false_lits.begin(), false_lits.end(), lit) != false_lits.end())
                    node = Node::createFalseNode();
                else
                    node = Node::createLiteralNode(Lit::fromInt(lit));
                edge->add_child(circuit.add_node_level_compressed(node));
                iss >> lit;
            }
            if (edge != nodes[parent]) {
                edge = circuit.add_node_level_compressed(edge);
                nodes[parent]->add_child(edge);
            }
        }
    }

    // Root node is never used, so we need to manually add it
    nodes[1] = circuit.add_node_level_compressed(nodes[1]);
    return nodes[1];
}

/**
 * Write the given circuit as dot format to a file.
 * @param circuit The circuit to write as dot format.
 * @param filename The filepath to write to.
 */
void to_dot_file(Circuit& circuit, const std::string& filename) {
    std::ofstream file(filename);
    file << "digraph G {" << std::endl;
    for (const auto &layer: circuit.layers) {
        for (const auto *node : layer) {
            for (Node *child: node->children) {
                file << "  " << child->hash << " -> " << node->hash << std::endl;
            }
            file << "  " << node->hash << " [label=\"" << node->get_label() << "\"]" << std::endl;
        }
    }
    // Group nodes per layer
    // using { rank=same; 1; 2; } to group node 1 and 2
    for (const auto &layer: circuit.layers) {
          file << "  { rank=same; ";
          for (const auto *node : layer) {
              file << node->hash << "; ";
          }
          file << "}" << std::endl;
    }
    file << "}" << std::endl;
}

NodePtr Circuit::add_sdd_from_file(const std::string &filename, std::vector<int>& true_lits, std::vector<int>& false_lits) {
    Node* new_root = parseSDDFile(filename, *this, true_lits, false_lits);
    roots.push_back(new_root);
#ifndef NDEBUG
    to_dot_file(*this, "circuit_sdd.dot");
#endif
    return NodePtr(new_root);
}

NodePtr Circuit::add_d4_from_file(const std::string &filename, std::vector<int>& true_lits, std::vector<int>& false_lits) {
    Node* new_root = parseD4File(filename, *this, true_lits, false_lits);
    roots.push_back(new_root);
#ifndef NDEBUG
    to_dot_file(*this, "circuit_d4.dot");
#endif
    return NodePtr(new_root);
}


void Circuit::add_root_layer() {
    if (roots.empty())
        throw std::runtime_error("Cannot construct root layer, there are no roots!");

    std::size_t root_layer_index = nb_layers();
    for (std::size_t i=0; i<roots.size(); i++) {
        Node* root = roots[i];
        while (root->layer < root_layer_index) {
            root = root->dummy_parent();
            if (root->layer == root_layer_index)
                root->hash = i; // in the final layer, nodes are placed in the same order as the roots vector
            root = add_node(root);
        }
        roots[i] = root;
    }
}

}  // namespace klay
