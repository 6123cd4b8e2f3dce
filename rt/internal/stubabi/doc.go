// Package stubabi holds what rt and rtimpl share of the interface between
// the runtime and the code qdgen generates: the description of a module
// (ModuleSpec and the types it holds), the packing of arguments, and the
// hook through which rtimpl reaches rt's modules. rt keeps its modules'
// machinery unexported, so that its documentation is the user's; rtimpl
// gives generated code what it calls.
package stubabi
