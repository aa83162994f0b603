from peptdeep.mass_spec import match, ms_reader
