"""Place names the recognizers and the town check share: US states, and words that follow "from" but are
not a town (countries, continents, and places in a hospital or a life).

Its own module so that ``recognizers`` (which applies ``abroad``'s rows) and ``abroad`` (whose town check
needs these lists) do not import each other.
"""

from __future__ import annotations

import re

STATES = [*re.findall(r"\w+", "Alabama Alaska Arizona Arkansas California Colorado Connecticut "
                    "Delaware Florida Georgia Hawaii Idaho Illinois Indiana Iowa Kansas Kentucky Louisiana "
                    "Maine Maryland Massachusetts Michigan Minnesota Mississippi Missouri Montana Nebraska "
                    "Nevada Ohio Oklahoma Oregon Pennsylvania Texas Tennessee Utah Vermont Virginia "
                    "Washington Wisconsin Wyoming"),
    "New Hampshire", "New Jersey", "New Mexico", "New York", "North Carolina", "North Dakota",
    "Rhode Island", "South Carolina", "South Dakota", "West Virginia", "Puerto Rico", "District of Columbia"]

# Countries and regions: larger than a state, so not Safe Harbor identifiers ("originally from Poland").
_COUNTRY = ("(?:Ireland|England|Scotland|Wales|Britain|UK|USA|America|Canada|Mexico|Brazil|Argentina|"
            "Chile|Peru|Colombia|France|Germany|Spain|Portugal|Italy|Greece|Poland|Romania|"
            "Ukraine|Russia|Turkey|Egypt|Nigeria|Ghana|Kenya|Ethiopia|Somalia|Sudan|Morocco|"
            "Algeria|India|Pakistan|Bangladesh|Nepal|Sri Lanka|China|Japan|Korea|Vietnam|Thailand|"
            "Philippines|Indonesia|Malaysia|Australia|New Zealand|Samoa|Tonga|Fiji|Iran|Iraq|"
            "Syria|Lebanon|Jordan|Israel|Afghanistan|Europe|Africa|Asia|Jamaica|Cuba|Haiti|"
            "Hospital|Theatre|Recovery|Resus|Work|School|Holiday|Abroad|Home|Care)\\b")
