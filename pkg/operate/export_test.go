package operate

// Rescale is rescale, for the external tests.
var Rescale = rescale
