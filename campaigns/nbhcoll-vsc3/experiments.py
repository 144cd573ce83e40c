"""nbhcoll-vsc3: the same experiments as nbhcoll-jupiter (Table 2, row 2)."""
from gen.design import campaign_design

EXPERIMENTS = campaign_design("nbhcoll-jupiter")
