// placeholder removed once the stage has sources
